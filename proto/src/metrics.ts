// mainline.metrics.v1: the Metrics gRPC service.
export * from "./gen/mainline/metrics/v1/metrics_service.js";
