export * from "./test-status.js";
export * from "./status-settings.js";
export * from "./test-evidence.js";
export * from "./judge-status.js";
