// mainline.queue.v1 without its gRPC service: queue and PR messages and the merge queue's JetStream payloads,
// for code that must not load @grpc/grpc-js (services' domain/).
export * from "./gen/mainline/queue/v1/queue.js";
export * from "./gen/mainline/queue/v1/events.js";
export * from "./gen/mainline/queue/v1/priority.js";
export * from "./gen/mainline/queue/v1/github.js";
