export * from "./trace-metadata.js";
export * from "./unary-handler.js";
export * from "./grpc-server.js";
export * from "./grpc-client.js";
export * from "./health-check.js";
export * from "./status-message.js";
export * from "./grpc-status.js";
