import { callUnary } from "@mainline/kit/grpc/index";
import { HostPullRequestState, PullRequestAction, type QueueCoordinatorClient } from "@mainline/proto/queue";
import type { PullRequestEvent } from "@mainline/contract";

const ACTIONS: Record<string, PullRequestAction> = {
  opened: PullRequestAction.OPENED,
  synchronize: PullRequestAction.SYNCHRONIZE,
  closed: PullRequestAction.CLOSED,
  reopened: PullRequestAction.REOPENED,
  edited: PullRequestAction.EDITED,
};

/**
 * Records what a `pull_request` event says about the PR for organisation `org` (from an API-token relay or the
 * GitHub App's own webhook). Idempotent: a delivery id recorded once changes nothing the second time, and
 * older facts never overwrite newer ones.
 */
export async function recordPullRequestEvent(
  q: QueueCoordinatorClient,
  org: string,
  input: PullRequestEvent,
  deliveryId?: string,
): Promise<{ outcome: "recorded" | "ignored"; reason?: string }> {
  const action = ACTIONS[input.action];
  if (action === undefined)
    return {
      outcome: "ignored",
      reason: `action ${input.action} changes nothing Mainline tracks (branches, head, title, state)`,
    };
  const pr = input.pull_request;
  await callUnary(q.recordPullRequestFacts.bind(q), {
    org,
    repo: {
      host: new URL(input.repository.html_url).host,
      owner: input.repository.owner.login,
      name: input.repository.name,
    },
    number: input.number,
    action,
    headBranch: pr.head.ref,
    headSha: pr.head.sha.toLowerCase(),
    title: pr.title,
    author: pr.user.login,
    baseBranch: pr.base.ref,
    state: pr.state === "open" ? HostPullRequestState.OPEN : HostPullRequestState.CLOSED,
    merged: pr.merged ?? false,
    ...(deliveryId !== undefined ? { deliveryId } : {}),
  });
  return { outcome: "recorded" };
}
