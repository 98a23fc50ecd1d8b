export * from "./shutdown.js";
export * from "./run-main.js";
export * from "./service-runtime.js";
export * from "./entry-point.js";
export * from "./start-service.js";
