import { InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import { INSIGHTS_BUCKET_HOURS, INSIGHTS_PERIOD_HOURS, INSIGHTS_RETENTION_HOURS } from "@mainline/contract";
import type {
  GetQueueInsightsRequest,
  GetQueueInsightsResponse,
  QueueInsightsBucket,
} from "@mainline/proto/queue";
import {
  buildBuckets,
  HOUR_MS,
  hourOf,
  percentileMs,
  reportBuckets,
  type InsightsHour,
  type InsightsTotals,
} from "../domain/index.js";
import type { QueueDocument } from "../store/queue-repository.js";
import type { InsightHours } from "../store/insight-hours.js";
import type { ApiDeps } from "./api-deps.js";
import { FinishedBuckets } from "./finished-buckets.js";
import { requiredOrg } from "./command-parser.js";

const PERIODS: readonly number[] = Object.values(INSIGHTS_PERIOD_HOURS);
const BUCKETS: readonly number[] = Object.values(INSIGHTS_BUCKET_HOURS);
const MINUTE_MS = 60_000;

/** A queue's first hour not stored for good: its sealed hours waiting in its document, its open hour, or now's. */
function completeBeforeOf(doc: QueueDocument, now: number): number {
  const waiting = [...(doc.insightsSealed ?? []), ...(doc.insights ? [doc.insights] : [])];
  return Math.min(hourOf(now), ...waiting.map((h) => h.hour));
}

/** A queue's hours from `from` on: the stored ones, then those its document still holds (sealed, and open). */
async function hoursOf(
  doc: QueueDocument,
  store: InsightHours,
  from: number,
  now: number,
): Promise<InsightsHour[]> {
  const byHour = new Map<number, InsightsHour>();
  for (const h of await store.since(doc._id, from, completeBeforeOf(doc, now))) byHour.set(h.hour, h);
  for (const h of doc.insightsSealed ?? []) byHour.set(h.hour, h);
  if (doc.insights) byHour.set(doc.insights.hour, doc.insights);
  return [...byHour.values()].sort((a, b) => a.hour - b.hour);
}

const minutes = (ms: number | null) => (ms === null ? undefined : ms / MINUTE_MS);

function bucketToProto(b: InsightsTotals): QueueInsightsBucket & { startMs: number } {
  return {
    startMs: b.start,
    start: new Date(b.start),
    merged: b.merged,
    failed: b.failed,
    timeToMergeFromSubmittedP50: minutes(percentileMs(b.ttmSubmitted, 0.5)),
    timeToMergeFromSubmittedP90: minutes(percentileMs(b.ttmSubmitted, 0.9)),
    timeToMergeFromReadyP50: minutes(percentileMs(b.ttmReady, 0.5)),
    timeToMergeFromReadyP90: minutes(percentileMs(b.ttmReady, 0.9)),
    depthMax: b.depthMax,
    depthEnd: b.depthEnd,
    ciRuns: b.ciRuns,
    ciRunsAlone: b.ciRunsAlone,
    bisectionRuns: b.bisectionRuns,
    restarts: b.restarts,
    pausedMinutes: b.pausedMs / MINUTE_MS,
    targetBrokenMinutes: b.brokenMs / MINUTE_MS,
  };
}

/**
 * GetQueueInsights: one queue, a repository's queues, or the organisation's, over a period, from the hour records
 * (insights-hour.ts): the cost is the period's hours times the queues, whatever number of PRs passed; buckets
 * that can no longer change are remembered (finished-buckets.ts), so a repeated query adds up only the newest.
 */
export async function queueInsights(
  deps: Pick<ApiDeps, "queues" | "clock"> & { insightHours: InsightHours; finished: FinishedBuckets },
  req: GetQueueInsightsRequest,
): Promise<GetQueueInsightsResponse> {
  const org = requiredOrg(req.org);
  if (!PERIODS.includes(req.periodHours))
    throw new InvalidArgumentError("periodHours", `must be one of ${PERIODS.join(", ")}`);
  if (!BUCKETS.includes(req.bucketHours))
    throw new InvalidArgumentError("bucketHours", `must be one of ${BUCKETS.join(", ")}`);
  if (req.targetBranch && !req.repo) throw new InvalidArgumentError("targetBranch", "needs a repository");
  let docs = await deps.queues.list(org, req.repo);
  if (req.targetBranch) docs = docs.filter((d) => d.targetBranch === req.targetBranch);
  if (req.repo && docs.length === 0)
    throw new NotFoundError(
      `no queue for ${req.targetBranch ? `branch ${req.targetBranch} of ` : ""}${req.repo.host}/${req.repo.owner}/${req.repo.name}`,
    );
  const now = deps.clock().getTime();
  const { from, width, count } = reportBuckets({
    now,
    periodHours: req.periodHours,
    bucketHours: req.bucketHours,
  });
  const key = FinishedBuckets.key(
    req.bucketHours,
    docs.map((d) => d._id),
  );
  const known = deps.finished.leading(key, from, width, count);
  const tailFrom = from + known.length * width;
  const hours = await Promise.all(docs.map((d) => hoursOf(d, deps.insightHours, tailFrom, now)));
  const tail = buildBuckets(hours, { from: tailFrom, width, count: count - known.length, now }).map(
    bucketToProto,
  );
  const finishedBefore = Math.min(...docs.map((d) => completeBeforeOf(d, now)));
  deps.finished.remember(
    key,
    tail.filter((b) => b.startMs + width <= finishedBefore),
    now - INSIGHTS_RETENTION_HOURS * HOUR_MS - width,
  );
  return {
    queues: docs.map((d) => `${d.repoKey} ${d.targetBranch}`),
    buckets: [...known, ...tail.map(({ startMs: _, ...bucket }) => bucket)],
  };
}
