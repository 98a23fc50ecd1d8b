// mainline.flaky.v1: the FlakyAnalytics gRPC service, failing-test records and
// the flaky-test JetStream payloads.
export * from "./gen/mainline/flaky/v1/flaky.js";
export * from "./gen/mainline/flaky/v1/flaky_service.js";
export * from "./gen/mainline/flaky/v1/events.js";
export * from "./gen/mainline/flaky/v1/test_details.js";
