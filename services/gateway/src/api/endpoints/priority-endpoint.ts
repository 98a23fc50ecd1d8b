import { callUnary } from "@mainline/kit/grpc/index";
import { PRIORITY_RULE, priorityValueOf } from "@mainline/contract";
import { endpoint, type Endpoint } from "../endpoint.js";
import { queueRef } from "../queue-mapping.js";
import { setPullRequestPriorityRequest, setPullRequestPriorityResponse } from "../schemas/merge-queue.js";
import type { Upstreams } from "../../upstream/upstreams.js";

/**
 * POST /v1/setPullRequestPriority: changes the priority of a PR in the queue without losing its place in line
 * (a cancel and resubmit would). A PR that has not started testing moves to where the new priority puts it; one
 * already under test keeps its place and its run. 409 once the PR is being merged.
 */
export function priorityEndpoint(up: Upstreams): Endpoint {
  const q = up.queue;
  return endpoint({
    method: "post",
    path: "/setPullRequestPriority",
    operationId: "setPullRequestPriority",
    summary: `Change the priority of a PR in the queue (${PRIORITY_RULE}); it keeps the time it joined the line, so FIFO within a level holds, and a PR already under test keeps its place and run`,
    tag: "Merge queue",
    access: "org",
    input: setPullRequestPriorityRequest,
    inputIn: "body",
    output: setPullRequestPriorityResponse,
    async handle(input, { principal }) {
      const value = priorityValueOf(input.priority);
      return callUnary(q.setPullRequestPriority.bind(q), {
        queue: queueRef(principal.org, input.repo, input.targetBranch),
        prNumber: input.pr.number,
        priorityValue: value,
        requestedBy: `token:${principal.tokenId}`,
      });
    },
  });
}
