import { z } from "zod";
import { boundedText, branchName } from "./http/request-fields.js";
import { INSIGHTS_BUCKETS, INSIGHTS_PERIODS } from "./insights-periods.js";
import { LIMITS } from "./limits.js";

/**
 * POST /v1/insights/queue (issue 29): how a queue, or every queue of the organisation, went over a period, one
 * bucket per hour or day. The coordinator keeps an hour record per queue as its steps commit; the answer sums
 * them, so its cost grows with the period's hours, never with the PRs that passed.
 */
const choice = <const T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, { error: `must be one of ${values.join(", ")} (${what})` });

export const queueInsightsRequest = z.strictObject({
  repository: z
    .strictObject({
      host: boundedText("repository host, e.g. github.com", LIMITS.host),
      owner: boundedText("repository owner or organization", LIMITS.owner),
      name: boundedText("repository name", LIMITS.name),
    })
    .optional()
    .meta({ description: "One repository's queues; absent: every queue of the organisation (the overview)" }),
  targetBranch: branchName("only the queue of this target branch (with repository)").optional(),
  period: choice(INSIGHTS_PERIODS, "how far back from now"),
  bucket: choice(INSIGHTS_BUCKETS, "the width of one bucket"),
});
export type QueueInsightsRequest = z.infer<typeof queueInsightsRequest>;

const count = z.int().min(0);
const minutes = z.number().nullable();

export const queueInsightsBucket = z.object({
  /** The bucket's start (UTC, on the hour or at midnight). */
  start: z.iso.datetime({ offset: true }),
  merged: count,
  /** PRs that failed, by reason (TESTS_FAILED, MERGE_CONFLICT, TIMED_OUT, BUILD_FAILED). */
  failed: z.record(z.string(), count),
  /** Minutes from submission (and from first ready) to merge, of the PRs merged in the bucket; null: none. */
  timeToMerge: z.object({
    fromSubmittedP50: minutes,
    fromSubmittedP90: minutes,
    fromReadyP50: minutes,
    fromReadyP90: minutes,
  }),
  /** PRs in the queue: the most at once in the bucket, and at its end. */
  depthMax: count,
  depthEnd: count,
  /** Test runs started (main and bisection), and what testing each finished PR alone once would have cost. */
  ciRuns: count,
  ciRunsAlone: count,
  /** ciRunsAlone - ciRuns (negative when retries and bisections cost more than batching saved). */
  ciRunsSaved: z.int(),
  /** ciRuns / merged; null when nothing merged. */
  ciRunsPerMerged: z.number().nullable(),
  bisectionRuns: count,
  /** PRs sent back into line (their run restarted), by cause. */
  restarts: z.record(z.string(), count),
  /** Minutes the queue was paused, and minutes its target was broken (new runs held). */
  pausedMinutes: z.number().min(0),
  targetBrokenMinutes: z.number().min(0),
});
export type QueueInsightsBucket = z.infer<typeof queueInsightsBucket>;

export const queueInsightsResponse = z.object({
  period: z.enum(INSIGHTS_PERIODS),
  bucket: z.enum(INSIGHTS_BUCKETS),
  /** The queues counted ("host/owner/name branch"). */
  queues: z.array(z.string()),
  /** Oldest first; every bucket of the period, empty ones included. */
  buckets: z.array(queueInsightsBucket),
});
export type QueueInsightsResponse = z.infer<typeof queueInsightsResponse>;
