import { callUnary } from "@mainline/kit/grpc/index";
import {
  INSIGHTS_BUCKET_HOURS,
  INSIGHTS_PERIOD_HOURS,
  queueInsightsRequest,
  queueInsightsResponse,
  type QueueInsightsResponse,
} from "@mainline/contract";
import { endpoint, type Endpoint } from "../endpoint.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const orNull = (v: number | undefined) => (v === undefined ? null : Math.round(v * 100) / 100);
const tenth = (v: number) => Math.round(v * 10) / 10;

/** Issue 29: a queue's (or the organisation's) figures over a period, from the coordinator's hour records. */
export function insightsQueueEndpoint(up: Upstreams): Endpoint {
  return endpoint({
    method: "post",
    path: "/insights/queue",
    operationId: "getQueueInsights",
    summary:
      "How a queue, a repository's queues or every queue of the organisation went over 24 h to 90 days, per hour or day: merged and failed PRs, time to merge, depth, CI runs saved, bisections, restarts, time paused or held by a broken target",
    tag: "Insights",
    access: "org",
    input: queueInsightsRequest,
    inputIn: "body",
    output: queueInsightsResponse,
    async handle(input, { principal }): Promise<QueueInsightsResponse> {
      const q = up.queue;
      const response = await callUnary(q.getQueueInsights.bind(q), {
        org: principal.org,
        ...(input.repository ? { repo: input.repository } : {}),
        targetBranch: input.targetBranch ?? "",
        periodHours: INSIGHTS_PERIOD_HOURS[input.period],
        bucketHours: INSIGHTS_BUCKET_HOURS[input.bucket],
      });
      return {
        period: input.period,
        bucket: input.bucket,
        queues: response.queues,
        buckets: response.buckets.map((b) => ({
          start: (b.start ?? new Date(0)).toISOString(),
          merged: b.merged,
          failed: b.failed,
          timeToMerge: {
            fromSubmittedP50: orNull(b.timeToMergeFromSubmittedP50),
            fromSubmittedP90: orNull(b.timeToMergeFromSubmittedP90),
            fromReadyP50: orNull(b.timeToMergeFromReadyP50),
            fromReadyP90: orNull(b.timeToMergeFromReadyP90),
          },
          depthMax: b.depthMax,
          depthEnd: b.depthEnd,
          ciRuns: b.ciRuns,
          ciRunsAlone: b.ciRunsAlone,
          ciRunsSaved: b.ciRunsAlone - b.ciRuns,
          ciRunsPerMerged: b.merged > 0 ? Math.round((b.ciRuns / b.merged) * 100) / 100 : null,
          bisectionRuns: b.bisectionRuns,
          restarts: b.restarts,
          pausedMinutes: tenth(b.pausedMinutes),
          targetBrokenMinutes: tenth(b.targetBrokenMinutes),
        })),
      };
    },
  });
}
