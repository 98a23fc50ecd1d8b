// The vocabulary once: each word of the domain with its wire codec, every limit, the HTTP response types.
// Pure values and zod schemas, no I/O: the services, the CLI and the web page import it ("sideEffects": false
// lets the web bundle keep only what it uses).
export * from "./priority.js";
export * from "./pull-ref-pattern.js";
export * from "./merge-queue-job-name.js";
export * from "./repository.js";
export * from "./http/priority-input.js";
export * from "./git-ref-name.js";
export * from "./utf8-bytes.js";
export * from "./http/request-fields.js";
export * from "./http/code-host-events.js";
export * from "./run-outcome.js";
export * from "./run-test-failures.js";
export * from "./run-kind.js";
export * from "./pull-request-state.js";
export * from "./batch-status.js";
export * from "./queue-state.js";
export * from "./limits.js";
export * from "./queue-settings.js";
export * from "./flaky-settings.js";
export * from "./http/merge-queue-responses.js";
export * from "./http/flaky-responses.js";
export * from "./http/webhook-responses.js";
export type * from "./http/response-types.js";
export * from "./wire-words.js";
export * from "./webhook-event-types.js";
export * from "./queue-history-page.js";
export * from "./insights-tests.js";
export * from "./insights-periods.js";
export * from "./insights-queue.js";
