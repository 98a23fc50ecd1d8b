import { createGrpcClient } from "@mainline/kit/grpc/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { FlakyAnalyticsClient } from "@mainline/proto/flaky";
import { MetricsClient } from "@mainline/proto/metrics";
import { WebhooksClient } from "@mainline/proto/webhooks";
import { SubmittedPullRequestLookups } from "./submitted-pull-request-lookups.js";

/** The gRPC clients of the services behind the gateway. */
export interface Upstreams {
  queue: QueueCoordinatorClient;
  /** getSubmittedPullRequest, coalesced across concurrent requests. */
  submittedPullRequests: SubmittedPullRequestLookups;
  flaky: FlakyAnalyticsClient;
  metrics: MetricsClient;
  webhooks: WebhooksClient;
  close(): void;
}

export function connectUpstreams(addresses: {
  queue: string;
  flaky: string;
  metrics: string;
  webhooks: string;
  /** Most status polls per coalesced call (GATEWAY_STATUS_POLL_BATCH_SIZE). */
  statusPollBatchSize?: number;
}): Upstreams {
  const queue = createGrpcClient(QueueCoordinatorClient, addresses.queue);
  const flaky = createGrpcClient(FlakyAnalyticsClient, addresses.flaky);
  const metrics = createGrpcClient(MetricsClient, addresses.metrics);
  const webhooks = createGrpcClient(WebhooksClient, addresses.webhooks);
  return {
    queue,
    submittedPullRequests: new SubmittedPullRequestLookups(queue, addresses.statusPollBatchSize),
    flaky,
    metrics,
    webhooks,
    close() {
      for (const client of [queue, flaky, metrics, webhooks]) client.close();
    },
  };
}
