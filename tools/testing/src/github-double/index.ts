export * from "./app-credentials.js";
export * from "./github-description.js";
export * from "./github-double.js";
export * from "./request-checker.js";
