// mainline.flaky.v1: the FlakyAnalytics gRPC service, failing-test records and
// the flaky-test JetStream payloads.
export * from "./flaky-messages.js";
export * from "./gen/mainline/flaky/v1/flaky_service.js";
