import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { FINISHED_STATES, QUEUE_HISTORY_PAGE, type FinishedState } from "@mainline/contract";
import {
  PullRequestState,
  type ListFinishedPullRequestsRequest,
  type ListFinishedPullRequestsResponse,
} from "@mainline/proto/queue";
import { queueAddress } from "../app/queue-key.js";
import type { FinishedQuery } from "../store/pull-request-records.js";
import type { ApiDeps } from "./api-deps.js";

const { maxLimit, maxOffset, maxSearchLength } = QUEUE_HISTORY_PAGE;

function parseStates(states: readonly PullRequestState[]): FinishedState[] {
  if (states.length === 0) return [...FINISHED_STATES];
  // The wire's enum values are the domain's words (string enums).
  return states.map((s) => {
    if (!FINISHED_STATES.includes(s as FinishedState))
      throw new InvalidArgumentError("states", `each must be one of ${FINISHED_STATES.join(", ")}`);
    return s as FinishedState;
  });
}

function parseSearch(search: string): FinishedQuery["search"] {
  if (search.length > maxSearchLength)
    throw new InvalidArgumentError("search", `must be at most ${maxSearchLength} characters`);
  const text = search.trim();
  if (!text) return undefined;
  const digits = /^#?([0-9]{1,10})$/.exec(text)?.[1];
  return digits !== undefined ? { number: Number(digits), text } : { text };
}

/** The history of one queue: the PRs that left it, the latest first, one page of them. */
export async function listFinishedPullRequests(
  deps: Pick<ApiDeps, "queues" | "records">,
  req: ListFinishedPullRequestsRequest,
): Promise<ListFinishedPullRequestsResponse> {
  const address = queueAddress(req.queue);
  if (req.limit < 1 || req.limit > maxLimit)
    throw new InvalidArgumentError("limit", `must be an integer from 1 to ${maxLimit}`);
  if (req.offset > maxOffset)
    throw new InvalidArgumentError("offset", `must be an integer from 0 to ${maxOffset}`);
  const query: FinishedQuery = {
    states: parseStates(req.states),
    limit: req.limit,
    offset: req.offset,
  };
  const search = parseSearch(req.search);
  if (search) query.search = search;
  // Another organisation's token names a queue it does not have: NOT_FOUND, as every read of the queue.
  const doc = await deps.queues.get(address);
  const { docs, total } = await deps.records.pageFinished(doc._id, query);
  return {
    total,
    pullRequests: docs.map(({ entry }) => ({
      id: entry.id,
      state: PullRequestState[entry.state],
      endedAt: new Date(entry.stateChangedAt),
      prNumber: entry.number,
      prTitle: entry.facts?.title ?? "",
      prAuthor: entry.facts?.author ?? "",
      headBranch: entry.facts?.headBranch ?? "",
      submittedAt: new Date(entry.submittedAt),
      reason: entry.history[entry.history.length - 1]?.reason ?? "",
    })),
  };
}
