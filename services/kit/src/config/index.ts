export * from "./load-config.js";
export * from "./fields.js";
