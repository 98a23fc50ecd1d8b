import { FailedPreconditionError, InvalidArgumentError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { WebhooksServer } from "@mainline/proto/webhooks";
import type { GitHubOutbox } from "../store/github-outbox.js";

/** GitHub's limit on a comment body. */
export const MAX_COMMENT_LENGTH = 65_536;
const MAX_KEY_LENGTH = 200;
const MAX_NAME_LENGTH = 255;
const MAX_PR_NUMBER = 2_147_483_647;
const DEFAULT_CALLS = 50;
const MAX_CALLS = 500;

/**
 * PostPullRequestComment: the gateway's replies to comment commands, queued in the outbox (posted once per
 * idempotency key, retried until GitHub has them). Without a configured App the call is refused.
 */
export function githubCommentsApi(deps: {
  outbox: GitHubOutbox | undefined;
  now?: () => Date;
}): Pick<AsyncImplementation<WebhooksServer>, "postPullRequestComment" | "listGitHubCalls"> {
  const now = deps.now ?? (() => new Date());
  return {
    async postPullRequestComment(request) {
      bounded("org", request.org, MAX_NAME_LENGTH);
      const repo = request.repo;
      if (!repo) throw new InvalidArgumentError("repo", "is required");
      bounded("repo.host", repo.host, MAX_NAME_LENGTH);
      bounded("repo.owner", repo.owner, MAX_NAME_LENGTH);
      bounded("repo.name", repo.name, MAX_NAME_LENGTH);
      if (request.prNumber < 1 || request.prNumber > MAX_PR_NUMBER)
        throw new InvalidArgumentError("prNumber", `must be from 1 to ${MAX_PR_NUMBER}`);
      bounded("body", request.body, MAX_COMMENT_LENGTH);
      bounded("idempotencyKey", request.idempotencyKey, MAX_KEY_LENGTH);
      if (!deps.outbox) throw new FailedPreconditionError("the GitHub App is not configured (GITHUB_APP_ID)");
      const queued = await deps.outbox.addComment(
        `reply:${request.idempotencyKey}`,
        {
          org: request.org,
          repo: { host: repo.host, owner: repo.owner, name: repo.name },
          prNumber: request.prNumber,
        },
        request.body,
        now(),
      );
      return { queued };
    },

    async listGitHubCalls(request) {
      bounded("org", request.org, MAX_NAME_LENGTH);
      const limit = request.limit === 0 ? DEFAULT_CALLS : request.limit;
      if (limit > MAX_CALLS) throw new InvalidArgumentError("limit", `must be from 1 to ${MAX_CALLS}`);
      if (!deps.outbox) throw new FailedPreconditionError("the GitHub App is not configured (GITHUB_APP_ID)");
      const calls = await deps.outbox.recent(request.org, limit);
      return {
        calls: calls.map((call) => ({
          id: call._id,
          kind: call.kind,
          repo: call.repo,
          prNumber: call.prNumber,
          state: call.pending ? "pending" : call.gaveUpAt ? "gave_up" : "sent",
          attempts: call.attempts,
          ...(call.lastError !== undefined && { lastError: call.lastError }),
          ...(call.view !== undefined && { title: call.view.title }),
          updatedAt: call.updatedAt,
        })),
      };
    },
  };
}

function bounded(field: string, value: string, max: number): void {
  if (value.trim() === "") throw new InvalidArgumentError(field, "is required");
  if (value.length > max) throw new InvalidArgumentError(field, `must be at most ${max} characters`);
}
