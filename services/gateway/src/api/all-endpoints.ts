import type { AuthRepository } from "../auth/auth-repository.js";
import type { Upstreams } from "../upstream/upstreams.js";
import type { MergeEstimates } from "../upstream/merge-estimates.js";
import type { Endpoint } from "./endpoint.js";
import { adminEndpoints } from "./endpoints/admin-endpoints.js";
import { codeHostEndpoints, type CodeHostOptions } from "./endpoints/code-host-endpoints.js";
import { githubEndpoints, type GitHubAppOptions } from "./endpoints/github-endpoints.js";
import { flakyTestEndpoints } from "./endpoints/flaky-test-endpoints.js";
import { listQueuesEndpoint } from "./endpoints/list-queues-endpoint.js";
import { insightsQueueEndpoint } from "./endpoints/insights-queue-endpoint.js";
import { queueHistoryEndpoint } from "./endpoints/queue-history-endpoint.js";
import { flakyRepositoriesEndpoint } from "./endpoints/flaky-repositories-endpoint.js";
import { insightsTestsEndpoints } from "./endpoints/insights-tests-endpoints.js";
import { mergeQueueEndpoints } from "./endpoints/merge-queue-endpoints.js";
import { priorityEndpoint } from "./endpoints/priority-endpoint.js";
import { metricsEndpoints } from "./endpoints/metrics-endpoints.js";
import { testRunEndpoints } from "./endpoints/test-run-endpoints.js";
import { webhookEndpoints } from "./endpoints/webhook-endpoints.js";

/** Every endpoint of /v1, in the order the OpenAPI document lists them. */
export function allEndpoints(
  upstreams: Upstreams,
  auth: AuthRepository,
  codeHost: CodeHostOptions,
  extras: { publicUrl?: string; estimates?: MergeEstimates; github?: GitHubAppOptions } = {},
): Endpoint[] {
  return [
    ...mergeQueueEndpoints(upstreams, extras),
    priorityEndpoint(upstreams),
    ...testRunEndpoints(upstreams),
    listQueuesEndpoint(upstreams),
    queueHistoryEndpoint(upstreams),
    insightsQueueEndpoint(upstreams),
    ...metricsEndpoints(upstreams),
    ...flakyTestEndpoints(upstreams),
    flakyRepositoriesEndpoint(upstreams),
    ...insightsTestsEndpoints(upstreams),
    ...codeHostEndpoints(upstreams, codeHost),
    ...githubEndpoints(
      upstreams,
      extras.github ?? { apiUrl: "https://api.github.com", logger: codeHost.logger },
    ),
    ...adminEndpoints(auth),
    ...webhookEndpoints(upstreams),
  ];
}
