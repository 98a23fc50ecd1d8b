// mainline.queue.v1: the QueueCoordinator gRPC service, queue and PR messages,
// and the merge queue's JetStream payloads (jobs, results, lifecycle events).
export * from "./gen/mainline/queue/v1/queue.js";
export * from "./gen/mainline/queue/v1/queue_service.js";
export * from "./gen/mainline/queue/v1/events.js";
export * from "./gen/mainline/queue/v1/priority.js";
export * from "./gen/mainline/queue/v1/github.js";
