import type { TestInsightsResponse, TestTrendResponse } from "@mainline/contract";
import { formatTable } from "./table.js";

const percent = (part: number, whole: number) => (whole === 0 ? "-" : `${Math.round((part / whole) * 100)}%`);

/** A bucket's start as people read it: the day, and the hour when buckets are hours (UTC). */
function bucketLabel(start: string, bucket: string): string {
  return bucket === "hour" ? `${start.slice(0, 13)}:00Z` : start.slice(0, 10);
}

/** Seconds as the largest whole units: 95 s -> "1m35s", 7,300 s -> "2h01m". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * `mainline insights tests` for people: the buckets that had runs or flaky or broken tests (a quiet hour says
 * nothing), then the page of costliest tests. --json has every bucket.
 */
export function testInsightsTable(repo: string, answer: TestInsightsResponse): string[] {
  const shown = answer.buckets.filter((b) => b.runs > 0 || b.flaky_tests > 0 || b.broken_tests > 0);
  const lines = [`${repo}: tests over ${answer.period} by ${answer.bucket} (UTC), from ${answer.from}`];
  if (shown.length === 0) lines.push("No test ran in this period.");
  else {
    lines.push(
      ...formatTable(
        [answer.bucket.toUpperCase(), "RUNS", "FAILED", "FAILURE RATE", "FLAKY TESTS", "BROKEN TESTS"],
        shown.map((b) => [
          bucketLabel(b.start, answer.bucket),
          String(b.runs),
          String(b.failures),
          percent(b.failures, b.runs),
          String(b.flaky_tests),
          String(b.broken_tests),
        ]),
      ),
    );
  }
  lines.push("");
  if (answer.costliest.length === 0) {
    lines.push("No test failed or lost time to retries in this period.");
    return lines;
  }
  lines.push(`Costliest tests (${answer.total_costly_tests} in all):`);
  lines.push(
    ...formatTable(
      ["ID", "FAILED QUEUE RUNS", "PRS IMPACTED", "RETRY TIME", "FAILED/RUNS", "STATUS", "NAME"],
      answer.costliest.map((t) => [
        t.test_id,
        String(t.failed_queue_runs),
        String(t.pull_requests_impacted),
        duration(t.retry_seconds),
        `${t.failures}/${t.runs}`,
        t.status,
        t.variant ? `${t.name} [${t.variant}]` : t.name,
      ]),
    ),
  );
  if (answer.next_cursor) lines.push("", `More: add --cursor ${answer.next_cursor}`);
  return lines;
}

const STRIP: Record<string, string> = { passed: "✓", failed: "✗", flaky: "~" };

/** `mainline insights tests --test <id>`: the pass/fail strip, then the failure rate per bucket with runs. */
export function testTrendTable(answer: TestTrendResponse): string[] {
  const strip = answer.recent_runs.map((r) => STRIP[r.outcome] ?? "?").join("");
  const shown = answer.buckets.filter((b) => b.runs > 0);
  return [
    `${answer.name} (${answer.test_id})`,
    `latest runs, oldest first: ${strip || "none"}  (✓ passed, ✗ failed, ~ flaky: failed, then passed on retry)`,
    `failure rate over ${answer.period} by ${answer.bucket} (UTC):`,
    ...(shown.length === 0
      ? ["  no run in this period"]
      : formatTable(
          [answer.bucket.toUpperCase(), "RUNS", "FAILED", "FAILURE RATE"],
          shown.map((b) => [
            bucketLabel(b.start, answer.bucket),
            String(b.runs),
            String(b.failures),
            percent(b.failures, b.runs),
          ]),
        )),
  ];
}
