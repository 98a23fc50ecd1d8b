// What the CLI offers besides its bin: running it in-process (its tests, the demo, the web page's test), the API
// client and the PR watch the demo drives, and the pure pieces the unit tests check.
export type { QueueKey } from "./api/api-types.js";
export { MainlineApi } from "./api/mainline-api.js";
export { formatElapsed, pullRequestFrame, watchPullRequests } from "./app/watch-pull-requests.js";
export { CliError, EXIT } from "./cli-error.js";
export type { CliIo, TextSink } from "./cli-io.js";
export { apiUrlFrom } from "./connection-settings.js";
export { parsePullRequestRef } from "./domain/pull-request-ref.js";
export { quarantineVerdict, verdictExitCode } from "./domain/quarantine-verdict.js";
export { afterRetry, firstAttempt, stopRetrying } from "./domain/flaky-retry.js";
export { formatRepositoryRef, parseRepositoryRef } from "./domain/repository-ref.js";
export { LiveDisplay } from "./output/live-display.js";
export { formatTable } from "./output/table.js";
export { runCli } from "./run-cli.js";
