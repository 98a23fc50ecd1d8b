import type { z } from "zod";
import type {
  getTestResponse,
  listFailingTestsResponse,
  quarantineConfigResponse,
  repositorySettings,
  uploadTestResultsResponse,
} from "./flaky-responses.js";
import type {
  enqueuedPullRequest,
  listQueuesResponse,
  queueResponse,
  queueSummary,
  setPullRequestPriorityResponse,
  submittedPullRequestResponse,
  testingDetailsResponse,
  testRunInFlight,
  updatedQueueResponse,
} from "./merge-queue-responses.js";
import type {
  createdSubscriptionResponse,
  deliveryResponse,
  subscriptionResponse,
} from "./webhook-responses.js";

/**
 * What the API answers, as the CLI and the web page read it: inferred from the schemas that make the OpenAPI
 * document, so a client and the document cannot drift apart.
 */
export type SubmittedPullRequest = z.infer<typeof submittedPullRequestResponse>;
export type PullRequestTransition = SubmittedPullRequest["history"][number];
export type PriorityChange = SubmittedPullRequest["priorityChanges"][number];
export type EnqueuedPullRequest = z.infer<typeof enqueuedPullRequest>;
export type Queue = z.infer<typeof queueResponse>;
export type QueueSettings = z.infer<typeof updatedQueueResponse>;
export type TestRunInFlight = z.infer<typeof testRunInFlight>;
export type TestingDetails = z.infer<typeof testingDetailsResponse>;
export type PriorityChanged = z.infer<typeof setPullRequestPriorityResponse>;
export type QueueSummary = z.infer<typeof queueSummary>;
export type QueueList = z.infer<typeof listQueuesResponse>;
export type FailingTestsPage = z.infer<typeof listFailingTestsResponse>;
export type FailingTest = FailingTestsPage["tests"][number];
export type TestDetails = z.infer<typeof getTestResponse>;
export type RecentRun = TestDetails["recent_runs"][number];
export type UploadSummary = z.infer<typeof uploadTestResultsResponse>;
export type QuarantineConfig = z.infer<typeof quarantineConfigResponse>;
export type FlakyRepositorySettings = z.infer<typeof repositorySettings>;
export type WebhookSubscription = z.infer<typeof subscriptionResponse>;
export type CreatedWebhookSubscription = z.infer<typeof createdSubscriptionResponse>;
export type WebhookDelivery = z.infer<typeof deliveryResponse>;
