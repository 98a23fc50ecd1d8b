// mainline.flaky.v1 without its gRPC service: failing-test records and the flaky-test JetStream payloads,
// for code that must not load @grpc/grpc-js (services' domain/).
export * from "./gen/mainline/flaky/v1/flaky.js";
export * from "./gen/mainline/flaky/v1/events.js";
export * from "./gen/mainline/flaky/v1/test_details.js";
export * from "./gen/mainline/flaky/v1/test_insights.js";
