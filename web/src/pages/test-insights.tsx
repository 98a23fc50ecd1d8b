import { useMemo, useState } from "preact/hooks";
import {
  INSIGHTS_BUCKETS,
  INSIGHTS_PERIODS,
  type InsightsBucket,
  type InsightsPeriod,
  type TestInsightsResponse,
} from "@mainline/contract";
import { api, parseRepoKey } from "../api.js";
import { Chart, type ChartSeries } from "../charts/chart.js";
import { stateClass } from "../format.js";
import { useLive } from "../live.js";

export const PERIOD_LABELS: Record<InsightsPeriod, string> = {
  "24h": "24 hours",
  "7d": "7 days",
  "30d": "30 days",
  "90d": "90 days",
};

/** Seconds as people read a duration: "45 s", "12 min", "3.5 h". */
export function durationText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** The period and bucket pickers both insight sections share. */
export function PeriodPicker(props: {
  idPrefix: string;
  period: InsightsPeriod;
  bucket: InsightsBucket;
  onPeriod: (p: InsightsPeriod) => void;
  onBucket: (b: InsightsBucket) => void;
}) {
  return (
    <p class="inline">
      <label for={`${props.idPrefix}-period`}>Period</label>
      <select
        id={`${props.idPrefix}-period`}
        value={props.period}
        onChange={(e) => props.onPeriod(e.currentTarget.value as InsightsPeriod)}
      >
        {INSIGHTS_PERIODS.map((p) => (
          <option value={p} key={p}>
            last {PERIOD_LABELS[p]}
          </option>
        ))}
      </select>
      <label for={`${props.idPrefix}-bucket`}>By</label>
      <select
        id={`${props.idPrefix}-bucket`}
        value={props.bucket}
        onChange={(e) => props.onBucket(e.currentTarget.value as InsightsBucket)}
      >
        {INSIGHTS_BUCKETS.map((b) => (
          <option value={b} key={b}>
            {b}
          </option>
        ))}
      </select>
    </p>
  );
}

const PAGE = 20;

/**
 * The flaky tests page's insights (POST /v1/insights/tests): flaky and broken tests over time, runs and failures,
 * and the costliest tests a page at a time (cursor paging: past 100 tests and on).
 */
export function TestInsights({ repo }: { repo: string }) {
  const [period, setPeriod] = useState<InsightsPeriod>("30d");
  const [bucket, setBucket] = useState<InsightsBucket>("day");
  // The cursors that led to the page shown (none: the first page); "Previous" drops the last one.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const { data, error } = useLive(
    () =>
      api<TestInsightsResponse>("/insights/tests", {
        repository: parseRepoKey(repo),
        period,
        bucket,
        limit: PAGE,
        ...(cursor !== undefined ? { cursor } : {}),
      }),
    { repo },
    `${repo} ${period} ${bucket} ${cursor ?? ""}`,
  );
  const charts = useMemo(() => {
    if (!data) return undefined;
    const times = data.buckets.map((b) => Date.parse(b.start));
    const series = (label: string, value: (b: TestInsightsResponse["buckets"][number]) => number) => ({
      label,
      values: data.buckets.map(value),
    });
    const status: ChartSeries[] = [
      series("flaky", (b) => b.flaky_tests),
      series("broken", (b) => b.broken_tests),
    ];
    const runs: ChartSeries[] = [
      series("passed", (b) => b.runs - b.failures),
      series("failed", (b) => b.failures),
    ];
    return { times, status, runs, bucket: data.bucket };
  }, [data]);
  const reset = (change: () => void) => {
    change();
    setCursors([]);
  };
  const first = cursors.length * PAGE + 1;
  return (
    <section id="test-insights" aria-labelledby="test-insights-heading">
      <h2 id="test-insights-heading">Over time</h2>
      <PeriodPicker
        idPrefix="tests"
        period={period}
        bucket={bucket}
        onPeriod={(p) => reset(() => setPeriod(p))}
        onBucket={(b) => reset(() => setBucket(b))}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {charts && (
        <div class="charts">
          <Chart
            id="chart-flaky-broken"
            title="Flaky and broken tests"
            kind="lines"
            unit="tests"
            bucket={charts.bucket}
            times={charts.times}
            series={charts.status}
          />
          <Chart
            id="chart-test-runs"
            title="Test runs"
            kind="stacked-bars"
            unit="runs"
            bucket={charts.bucket}
            times={charts.times}
            series={charts.runs}
          />
        </div>
      )}
      {data && (
        <>
          <h2 id="costliest-heading">Costliest tests</h2>
          <p class="meta">
            Failed merge-queue runs first, then pull requests impacted, then time lost to retried attempts;
            whole UTC days covering the last {PERIOD_LABELS[period]}.
          </p>
          {data.costliest.length === 0 ? (
            <p>No test failed or lost time to retries in this period.</p>
          ) : (
            <table class="tests" id="costliest" aria-labelledby="costliest-heading">
              <thead>
                <tr>
                  <th scope="col">Test</th>
                  <th scope="col">Failed queue runs</th>
                  <th scope="col">PRs impacted</th>
                  <th scope="col">Lost to retries</th>
                  <th scope="col">Failed / runs</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {data.costliest.map((t) => (
                  <tr key={t.test_id} data-test-id={t.test_id}>
                    <th scope="row">
                      <a href={new URL(t.html_url).pathname}>{t.name}</a>
                      {t.variant && <span class="meta"> ({t.variant})</span>}
                    </th>
                    <td data-label="Failed queue runs">{t.failed_queue_runs}</td>
                    <td data-label="PRs impacted">{t.pull_requests_impacted}</td>
                    <td data-label="Lost to retries">{durationText(t.retry_seconds)}</td>
                    <td data-label="Failed / runs">
                      {t.failures} / {t.runs}
                    </td>
                    <td data-label="Status">
                      <span class={stateClass(t.status)}>{t.status}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p class="inline" id="costliest-pages">
            <span>
              Tests {data.costliest.length === 0 ? 0 : first}–{first - 1 + data.costliest.length} of{" "}
              {data.total_costly_tests}
            </span>
            {cursors.length > 0 && (
              <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
                Previous
              </button>
            )}
            {data.next_cursor !== undefined && (
              <button type="button" onClick={() => setCursors([...cursors, data.next_cursor!])}>
                Next
              </button>
            )}
          </p>
        </>
      )}
    </section>
  );
}
