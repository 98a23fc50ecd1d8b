import { callUnary } from "@mainline/kit/grpc/index";
import { QUEUE_HISTORY_PAGE, type FinishedState } from "@mainline/contract";
import { PullRequestState } from "@mainline/proto/queue";
import { endpoint, type Endpoint } from "../endpoint.js";
import { queueRef } from "../queue-mapping.js";
import {
  listFinishedPullRequestsRequest,
  listFinishedPullRequestsResponse,
} from "../schemas/queue-history.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const iso = (date: Date | undefined): string => (date ?? new Date(0)).toISOString();

/** A queue's history: the PRs that left it, the latest first. Ours, beyond the spec (the web page's history). */
export function queueHistoryEndpoint(up: Upstreams): Endpoint {
  return endpoint({
    method: "post",
    path: "/listFinishedPullRequests",
    operationId: "listFinishedPullRequests",
    summary:
      "The PRs that left a queue (merged, failed, cancelled), the latest first, filtered by state and searched by number, branch or author, a page at a time",
    tag: "Merge queue",
    access: "org",
    input: listFinishedPullRequestsRequest,
    inputIn: "body",
    output: listFinishedPullRequestsResponse,
    async handle(input, { principal }) {
      const q = up.queue;
      const limit = input.limit ?? QUEUE_HISTORY_PAGE.defaultLimit;
      const offset = input.offset ?? 0;
      const response = await callUnary(q.listFinishedPullRequests.bind(q), {
        queue: queueRef(principal.org, input.repo, input.targetBranch),
        // The wire's enum values are the API's words (string enums).
        states: (input.states ?? []).map((s) => s as PullRequestState),
        search: input.search ?? "",
        limit,
        offset,
      });
      return {
        total: response.total,
        limit,
        offset,
        pullRequests: response.pullRequests.map((p) => ({
          id: p.id,
          state: p.state as string as FinishedState,
          endedAt: iso(p.endedAt),
          prNumber: p.prNumber,
          prTitle: p.prTitle,
          prAuthor: p.prAuthor,
          headBranch: p.headBranch,
          submittedAt: iso(p.submittedAt),
          reason: p.reason,
        })),
      };
    },
  });
}
