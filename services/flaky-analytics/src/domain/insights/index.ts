export * from "./insights-query.js";
export * from "./costliest-cursor.js";
