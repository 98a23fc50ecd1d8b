export * from "./page-token.js";
export * from "./page-info.js";
export * from "./list-failing-tests-request.js";
