import type { SubmittedPullRequest } from "@mainline/contract";

/** The response shapes the CLI reads: the contract's, inferred from the schemas that make the API document. */
export type {
  CreatedWebhookSubscription,
  FailingTestsPage,
  FlakyRepositorySettings,
  PullRequestEvent,
  QuarantineConfig,
  Queue,
  QueueSettings,
  SubmittedPullRequest,
  UploadSummary,
  WebhookDelivery,
  WebhookSubscription,
} from "@mainline/contract";
export type PullRequestState = SubmittedPullRequest["state"];

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
