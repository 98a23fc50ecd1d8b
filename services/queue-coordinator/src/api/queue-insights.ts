import { InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import { INSIGHTS_BUCKET_HOURS, INSIGHTS_PERIOD_HOURS } from "@mainline/contract";
import type { GetQueueInsightsRequest, GetQueueInsightsResponse } from "@mainline/proto/queue";
import { buildReport, hourOf, percentileMs, reportBuckets, type InsightsHour } from "../domain/index.js";
import type { QueueDocument } from "../store/queue-repository.js";
import type { InsightHours } from "../store/insight-hours.js";
import type { ApiDeps } from "./api-deps.js";
import { requiredOrg } from "./command-parser.js";

const PERIODS: readonly number[] = Object.values(INSIGHTS_PERIOD_HOURS);
const BUCKETS: readonly number[] = Object.values(INSIGHTS_BUCKET_HOURS);
const MINUTE_MS = 60_000;

/** A queue's hours from `from` on: the stored ones, then those its document still holds (sealed, and open). */
async function hoursOf(
  doc: QueueDocument,
  store: InsightHours,
  from: number,
  now: number,
): Promise<InsightsHour[]> {
  const byHour = new Map<number, InsightsHour>();
  const waiting = [...(doc.insightsSealed ?? []), ...(doc.insights ? [doc.insights] : [])];
  const completeBefore = Math.min(hourOf(now), ...waiting.map((h) => h.hour));
  for (const h of await store.since(doc._id, from, completeBefore)) byHour.set(h.hour, h);
  for (const h of doc.insightsSealed ?? []) byHour.set(h.hour, h);
  if (doc.insights) byHour.set(doc.insights.hour, doc.insights);
  return [...byHour.values()].sort((a, b) => a.hour - b.hour);
}

/**
 * GetQueueInsights: one queue, a repository's queues, or the organisation's, over a period, from the hour records
 * (insights-hour.ts): the cost is the period's hours times the queues, whatever number of PRs passed.
 */
export async function queueInsights(
  deps: Pick<ApiDeps, "queues" | "clock"> & { insightHours: InsightHours },
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
  const query = { now: deps.clock().getTime(), periodHours: req.periodHours, bucketHours: req.bucketHours };
  const { from } = reportBuckets(query);
  const hours = await Promise.all(docs.map((d) => hoursOf(d, deps.insightHours, from, query.now)));
  const minutes = (ms: number | null) => (ms === null ? undefined : ms / MINUTE_MS);
  return {
    queues: docs.map((d) => `${d.repoKey} ${d.targetBranch}`),
    buckets: buildReport(hours, query).map((b) => ({
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
    })),
  };
}
