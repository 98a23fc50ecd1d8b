export * from "./github-app-client.js";
export * from "./github-app-config.js";
export * from "./github-errors.js";
export * from "./installation-token-cache.js";
