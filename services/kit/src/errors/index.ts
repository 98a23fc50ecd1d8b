export * from "./errors.js";
export * from "./status-table.js";
