export * from "./nats-server.js";
export * from "./eventually.js";
export * from "./free-port.js";
export * from "./git.js";
export * from "./rejection.js";
export * from "./skip-because.js";
export * from "./github-double/index.js";
export * from "./openapi-contract.js";
