import type { PullRequestState, PullRequestTransition } from "../../src/domain/pull-request-timeline.js";
import type { QueueIdentity } from "../../src/domain/queue-identity.js";

export const MINUTE = 60_000;

export const widgets: QueueIdentity = {
  org: "acme",
  host: "github.com",
  owner: "acme",
  name: "widgets",
  branch: "main",
};

let sequence = 0;

/** A transition of PR `pr` in `widgets` at `minute`, with a fresh event id. */
export function transition(
  pr: number,
  from: PullRequestState | null,
  to: PullRequestState,
  minute: number,
  extra: Partial<PullRequestTransition> = {},
): PullRequestTransition {
  sequence += 1;
  return {
    eventId: `e${sequence}`,
    queue: widgets,
    pr,
    from,
    to,
    at: minute * MINUTE,
    isBisection: false,
    ...extra,
  };
}
