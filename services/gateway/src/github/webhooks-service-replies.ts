import { callUnary } from "@mainline/kit/grpc/index";
import type { WebhooksClient } from "@mainline/proto/webhooks";
import type { PullRequestReplies } from "./github-webhook-handler.js";

/**
 * Replies to comment commands go to the webhooks service, which posts them from its durable outbox with the
 * GitHub App (retries, rate limits) and once per idempotency key: a redelivered command posts nothing twice.
 */
export function webhooksServiceReplies(webhooks: WebhooksClient): PullRequestReplies {
  return {
    async post(reply) {
      await callUnary(webhooks.postPullRequestComment.bind(webhooks), {
        org: reply.org,
        repo: reply.repo,
        prNumber: reply.prNumber,
        body: reply.body,
        idempotencyKey: reply.idempotencyKey,
      });
    },
  };
}
