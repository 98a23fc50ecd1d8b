import type { z } from "zod";
import type {
  queueResponse,
  submittedPullRequestResponse,
  updatedQueueResponse,
} from "@mainline/gateway/api/schemas/merge-queue";
import type {
  listFailingTestsResponse,
  quarantineConfigResponse,
  repositorySettings,
  uploadTestResultsResponse,
} from "@mainline/gateway/api/schemas/flaky-tests";
import type {
  createdSubscriptionResponse,
  deliveryResponse,
  subscriptionResponse,
} from "@mainline/gateway/api/schemas/webhooks";
import type { PullRequestEvent as GatewayPullRequestEvent } from "@mainline/gateway/api/schemas/code-host";

/** The response shapes the CLI reads, taken from the gateway's own schemas so the two cannot drift apart. */
export type SubmittedPullRequest = z.infer<typeof submittedPullRequestResponse>;
export type PullRequestState = SubmittedPullRequest["state"];
export type Queue = z.infer<typeof queueResponse>;
export type QueueSettings = z.infer<typeof updatedQueueResponse>;
export type UploadSummary = z.infer<typeof uploadTestResultsResponse>;
export type QuarantineConfig = z.infer<typeof quarantineConfigResponse>;
export type FlakyRepositorySettings = z.infer<typeof repositorySettings>;
export type FailingTestsPage = z.infer<typeof listFailingTestsResponse>;
export type WebhookSubscription = z.infer<typeof subscriptionResponse>;
export type CreatedWebhookSubscription = z.infer<typeof createdSubscriptionResponse>;
export type WebhookDelivery = z.infer<typeof deliveryResponse>;
export type PullRequestEvent = GatewayPullRequestEvent;

import type { RepositoryRef } from "@mainline/contract";

export type { RepositoryRef };

export interface QueueKey {
  repo: RepositoryRef;
  targetBranch: string;
}

export interface RepositoryConnection {
  repo: RepositoryRef;
  remoteUrl: string;
  credentialsSecretName: string;
  pullRefPattern: string;
  runner: { kind: "COMMAND" | "EXTERNAL"; command: string; junitGlobs: string[] };
}

export interface Organization {
  slug: string;
  name: string;
}

export interface TokenSummary {
  id: string;
  org: string;
  description: string;
  admin: boolean;
  createdAt: string;
  revokedAt: string | null;
}
