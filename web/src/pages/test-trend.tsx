import { useMemo, useState } from "preact/hooks";
import type { InsightsBucket, InsightsPeriod, TestTrendResponse } from "@mainline/contract";
import { api, parseRepoKey } from "../api.js";
import { Chart } from "../charts/chart.js";
import { useLive } from "../live.js";
import { PERIOD_LABELS, PeriodPicker } from "./test-insights.js";

const MARK: Record<string, string> = { passed: "✓", failed: "✗", flaky: "~" };

/**
 * A test's page insights (POST /v1/insights/test): the pass/fail strip of its latest runs and its failure rate per
 * hour (up to 7 days) or day (up to 90). The answer says which bucket it used; the chart follows it.
 */
export function TestTrend({ repo, testId }: { repo: string; testId: string }) {
  const [period, setPeriod] = useState<InsightsPeriod>("30d");
  const [bucket, setBucket] = useState<InsightsBucket>("day");
  const { data, error } = useLive(
    () =>
      api<TestTrendResponse>("/insights/test", {
        repository: parseRepoKey(repo),
        test_id: testId,
        period,
        bucket,
      }),
    { repo },
    `${repo} ${testId} ${period} ${bucket}`,
  );
  const chart = useMemo(() => {
    if (!data) return undefined;
    return {
      bucket: data.bucket,
      times: data.buckets.map((b) => Date.parse(b.start)),
      // A bucket without runs has no rate (a gap), not a rate of 0.
      series: [
        {
          label: "failure rate",
          values: data.buckets.map((b) => (b.runs === 0 ? null : b.failure_rate * 100)),
        },
      ],
    };
  }, [data]);
  return (
    <section id="test-trend" aria-labelledby="test-trend-heading">
      <h2 id="test-trend-heading">Over time</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {data && (
        <p class="strip-line">
          Latest runs, oldest first:{" "}
          <span class="run-strip" id="run-strip" role="list">
            {data.recent_runs.length === 0
              ? "none yet"
              : data.recent_runs.map((r, i) => (
                  <span
                    key={i}
                    role="listitem"
                    class={`strip-run strip-${r.outcome}`}
                    data-outcome={r.outcome}
                    title={`${r.outcome} · ${new Date(r.at).toLocaleString()}${r.pr_number ? ` · PR #${r.pr_number}` : ""}`}
                  >
                    {MARK[r.outcome] ?? "?"}
                  </span>
                ))}
          </span>{" "}
          <span class="meta">(✓ passed, ✗ failed, ~ flaky: failed, then passed on retry)</span>
        </p>
      )}
      <PeriodPicker
        idPrefix="test"
        period={period}
        bucket={bucket}
        onPeriod={setPeriod}
        onBucket={setBucket}
      />
      {data && data.bucket !== bucket && (
        <p class="meta" id="trend-bucket-note">
          A test keeps its hours for 7 days: the last {PERIOD_LABELS[period]} are shown by day.
        </p>
      )}
      {chart && (
        <div class="charts">
          <Chart
            id="chart-failure-rate"
            title="Failure rate"
            kind="lines"
            unit="%"
            bucket={chart.bucket}
            times={chart.times}
            series={chart.series}
          />
        </div>
      )}
    </section>
  );
}
