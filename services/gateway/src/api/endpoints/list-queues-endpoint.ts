import { z } from "zod";
import { listQueuesResponse, type QueueSummary } from "@mainline/contract";
import { callUnary } from "@mainline/kit/grpc/index";
import { PullRequestState, type Queue } from "@mainline/proto/queue";
import { endpoint, type Endpoint } from "../endpoint.js";
import { queueSettingsToJson } from "../queue-mapping.js";
import { repoSchema } from "../schemas/common.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const listQueuesRequest = z.strictObject({ repo: repoSchema.optional() });

function summaryOf(q: Queue): QueueSummary {
  const settings = queueSettingsToJson(q);
  const count = (state: PullRequestState) => q.enqueuedPullRequests.filter((p) => p.state === state).length;
  const notReady = count(PullRequestState.NOT_READY);
  return {
    repo: { host: q.ref?.repo?.host ?? "", owner: q.ref?.repo?.owner ?? "", name: q.ref?.repo?.name ?? "" },
    branch: settings.branch,
    state: settings.state,
    mode: settings.mode,
    concurrency: settings.concurrency,
    batch: settings.batch,
    depth: q.enqueuedPullRequests.length - notReady,
    notReady,
    testing: count(PullRequestState.TESTING),
    testRunsInFlight: q.activeTestRuns.length,
    lastHour: {
      merged: q.lastHour?.merged ?? 0,
      failed: q.lastHour?.failed ?? 0,
      cancelled: q.lastHour?.cancelled ?? 0,
    },
  };
}

/**
 * Every queue of the token's organisation (or of one of its repositories) with its depth and runs in flight:
 * what the web page's queue list shows. Ours, beyond the spec, which only reads one queue at a time.
 */
export function listQueuesEndpoint(up: Upstreams): Endpoint {
  return endpoint({
    method: "post",
    path: "/listQueues",
    operationId: "listQueues",
    summary:
      "List the organisation's queues (optionally of one repository) with depth, runs in flight and the PRs that ended in the last hour",
    tag: "Merge queue",
    access: "org",
    input: listQueuesRequest,
    inputIn: "body",
    output: listQueuesResponse,
    async handle(input, { principal }) {
      const q = up.queue;
      const response = await callUnary(q.listQueues.bind(q), {
        org: principal.org,
        ...(input.repo ? { repo: input.repo } : {}),
        allOrganizations: false,
      });
      return { queues: response.queues.map(summaryOf) };
    },
  });
}
