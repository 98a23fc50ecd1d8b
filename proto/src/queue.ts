// mainline.queue.v1: the QueueCoordinator gRPC service, queue and PR messages,
// and the merge queue's JetStream payloads (jobs, results, lifecycle events).
export * from "./queue-messages.js";
export * from "./gen/mainline/queue/v1/queue_service.js";
