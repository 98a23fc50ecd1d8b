import { useMemo, useState } from "preact/hooks";
import {
  INSIGHTS_BUCKETS,
  INSIGHTS_PERIODS,
  type InsightsBucket,
  type InsightsPeriod,
  type QueueInsightsBucket,
  type QueueInsightsResponse,
} from "@mainline/contract";
import { api, parseRepoKey } from "../api.js";
import { Chart, type ChartSeries } from "../charts/chart.js";
import { useLive } from "../live.js";

const PERIOD_LABELS: Record<InsightsPeriod, string> = {
  "24h": "24 hours",
  "7d": "7 days",
  "30d": "30 days",
  "90d": "90 days",
};

/** Every key a record of counts has in any bucket, in a stable order (largest total first). */
function keysOf(
  buckets: readonly QueueInsightsBucket[],
  pick: (b: QueueInsightsBucket) => Record<string, number>,
) {
  const totals = new Map<string, number>();
  for (const b of buckets)
    for (const [k, v] of Object.entries(pick(b))) totals.set(k, (totals.get(k) ?? 0) + v);
  return [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
}

const word = (reason: string) => reason.toLowerCase().replaceAll("_", " ");

/** The charts of one answer of POST /v1/insights/queue (exported for the rendering benchmark). */
export function InsightsCharts({ data }: { data: QueueInsightsResponse }) {
  // Built once per answer: the charts keep their plots and redraw only when the figures are new.
  const charts = useMemo(() => insightsFigures(data), [data]);
  const { bucket, queues } = data;
  const { times, totals } = charts;
  const common = { bucket, times };
  return (
    <>
      <p class="summary" id="insights-totals">
        <span data-total="merged">{totals.merged}</span> merged ·{" "}
        <span data-total="failed">{totals.failed}</span> failed ·{" "}
        <span data-total="ci-runs">{totals.runs}</span> CI runs for {totals.alone} finished PRs (
        <span data-total="saved">{totals.alone - totals.runs}</span> saved against testing each alone) ·{" "}
        {queues.length} queue{queues.length === 1 ? "" : "s"}
      </p>
      <div class="charts">
        <Chart
          {...common}
          id="chart-merged"
          title="PRs merged and failed"
          kind="stacked-bars"
          unit="PRs"
          series={charts.merged}
        />
        <Chart
          {...common}
          id="chart-time-to-merge"
          title="Time to merge"
          kind="lines"
          unit="min"
          series={charts.timeToMerge}
        />
        <Chart
          {...common}
          id="chart-depth"
          title="Queue depth"
          kind="lines"
          unit="PRs"
          series={charts.depth}
        />
        <Chart
          {...common}
          id="chart-ci-runs"
          title="CI runs against testing each PR alone"
          kind="lines"
          unit="runs"
          series={charts.ciRuns}
        />
        <Chart
          {...common}
          id="chart-restarts"
          title="Restarts by cause"
          kind="stacked-bars"
          unit="PRs"
          series={charts.restarts}
        />
        <Chart
          {...common}
          id="chart-held"
          title="Time paused or target broken"
          kind="stacked-bars"
          unit="min"
          series={charts.held}
        />
      </div>
    </>
  );
}

/** Each chart's series and the period's totals, from one answer. */
function insightsFigures({ buckets }: QueueInsightsResponse) {
  const times = buckets.map((b) => Date.parse(b.start));
  const series = (label: string, value: (b: QueueInsightsBucket) => number | null): ChartSeries => ({
    label,
    values: buckets.map(value),
  });
  const failures = keysOf(buckets, (b) => b.failed);
  const restarts = keysOf(buckets, (b) => b.restarts);
  const total = (f: (b: QueueInsightsBucket) => number) => buckets.reduce((sum, b) => sum + f(b), 0);
  return {
    times,
    totals: {
      merged: total((b) => b.merged),
      failed: total((b) => Object.values(b.failed).reduce((x, y) => x + y, 0)),
      runs: total((b) => b.ciRuns),
      alone: total((b) => b.ciRunsAlone),
    },
    merged: [
      series("merged", (b) => b.merged),
      ...failures.map((r) => series(`failed: ${word(r)}`, (b) => b.failed[r] ?? 0)),
    ],
    timeToMerge: [
      series("p50 from ready", (b) => b.timeToMerge.fromReadyP50),
      series("p90 from ready", (b) => b.timeToMerge.fromReadyP90),
      series("p50 from submitted", (b) => b.timeToMerge.fromSubmittedP50),
      series("p90 from submitted", (b) => b.timeToMerge.fromSubmittedP90),
    ],
    depth: [series("deepest", (b) => b.depthMax), series("at the end", (b) => b.depthEnd)],
    ciRuns: [
      series("CI runs", (b) => b.ciRuns),
      series("each PR alone", (b) => b.ciRunsAlone),
      series("bisection runs", (b) => b.bisectionRuns),
      series("runs per merged PR", (b) => b.ciRunsPerMerged),
    ],
    restarts:
      restarts.length > 0
        ? restarts.map((r) => series(word(r), (b) => b.restarts[r] ?? 0))
        : [series("restarts", () => 0)],
    held: [series("paused", (b) => b.pausedMinutes), series("target broken", (b) => b.targetBrokenMinutes)],
  };
}

/**
 * Queue insights (issue 29): one queue's (repo and branch), or with neither every queue of the organisation's,
 * figures over a chosen period and bucket, read from the coordinator's hour records.
 */
export function QueueInsights({ repo, branch }: { repo?: string; branch?: string }) {
  const [period, setPeriod] = useState<InsightsPeriod>("7d");
  const [bucket, setBucket] = useState<InsightsBucket>("day");
  const { data, error } = useLive(
    () =>
      api<QueueInsightsResponse>("/insights/queue", {
        ...(repo ? { repository: parseRepoKey(repo) } : {}),
        ...(branch ? { targetBranch: branch } : {}),
        period,
        bucket,
      }),
    repo && branch ? { repo, branch } : undefined,
    `${repo ?? ""} ${branch ?? ""} ${period} ${bucket}`,
  );
  return (
    <section aria-labelledby="insights-heading" class="insights">
      <h2 id="insights-heading">Insights</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Period{" "}
          <select
            id="insights-period"
            value={period}
            onChange={(e) => setPeriod(e.currentTarget.value as InsightsPeriod)}
          >
            {INSIGHTS_PERIODS.map((p) => (
              <option key={p} value={p}>
                {PERIOD_LABELS[p]}
              </option>
            ))}
          </select>
        </label>{" "}
        <label>
          Bucket{" "}
          <select
            id="insights-bucket"
            value={bucket}
            onChange={(e) => setBucket(e.currentTarget.value as InsightsBucket)}
          >
            {INSIGHTS_BUCKETS.map((b) => (
              <option key={b} value={b}>
                {b === "hour" ? "by hour" : "by day"}
              </option>
            ))}
          </select>
        </label>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {data && data.period === period && data.bucket === bucket && <InsightsCharts data={data} />}
      {!data && !error && <p class="loading">Loading insights…</p>}
    </section>
  );
}
