import { Command } from "commander";
import {
  INSIGHTS_BUCKETS,
  INSIGHTS_PERIODS,
  type InsightsBucket,
  type InsightsPeriod,
  type QueueInsightsBucket,
  type QueueInsightsResponse,
} from "@mainline/contract";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { parseRepositoryRef } from "../domain/repository-ref.js";
import { formatTable } from "../output/table.js";

/** `mainline insights`: the parent of `queue` (here) and `tests`, whichever registers first makes it. */
export function insightsCommand(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === "insights") ??
    program.command("insights").description("charts' figures as tables: how the queues and the tests went")
  );
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const byCount = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k.toLowerCase()} ${n}`)
    .join(", ");
const mins = (v: number | null) => (v === null ? "-" : v < 100 ? v.toFixed(1) : v.toFixed(0));

function row(b: QueueInsightsBucket, bucket: InsightsBucket): string[] {
  const failed = sum(b.failed);
  const restarts = sum(b.restarts);
  return [
    bucket === "day" ? b.start.slice(0, 10) : `${b.start.slice(0, 10)} ${b.start.slice(11, 16)}`,
    String(b.merged),
    failed === 0 ? "0" : `${failed} (${byCount(b.failed)})`,
    `${mins(b.timeToMerge.fromReadyP50)} / ${mins(b.timeToMerge.fromReadyP90)}`,
    `${mins(b.timeToMerge.fromSubmittedP50)} / ${mins(b.timeToMerge.fromSubmittedP90)}`,
    `${b.depthMax} / ${b.depthEnd}`,
    `${b.ciRuns} (${b.ciRunsPerMerged ?? "-"}/PR)`,
    String(b.ciRunsSaved),
    String(b.bisectionRuns),
    restarts === 0 ? "0" : `${restarts} (${byCount(b.restarts)})`,
    `${mins(b.pausedMinutes)} / ${mins(b.targetBrokenMinutes)}`,
  ];
}

/** `mainline insights queue`: the queue insights page's figures, a row per bucket (POST /v1/insights/queue). */
export function registerInsightsQueueCommand(program: Command, cli: CliContext): void {
  insightsCommand(program)
    .command("queue")
    .description("a queue's figures per hour or day (every queue of the organisation without --repo)")
    .option(
      "--repo <host/owner/name>",
      "one repository's queues (MAINLINE_REPO is not used: the overview is the default)",
    )
    .option("--target <branch>", "only the queue of this target branch (with --repo)")
    .option("--period <period>", `how far back: ${INSIGHTS_PERIODS.join(", ")}`, "7d")
    .option("--bucket <bucket>", `one row per: ${INSIGHTS_BUCKETS.join(", ")}`, "day")
    .action(
      async (opts: { repo?: string; target?: string; period: string; bucket: string }, command: Command) => {
        if (!INSIGHTS_PERIODS.includes(opts.period as InsightsPeriod))
          throw new CliError(`--period must be one of ${INSIGHTS_PERIODS.join(", ")}`);
        if (!INSIGHTS_BUCKETS.includes(opts.bucket as InsightsBucket))
          throw new CliError(`--bucket must be one of ${INSIGHTS_BUCKETS.join(", ")}`);
        if (opts.target && !opts.repo) throw new CliError("--target needs --repo");
        const repository = opts.repo ? parseRepositoryRef(opts.repo, "--repo") : undefined;
        const answer = await cli.api().post<QueueInsightsResponse>("/insights/queue", {
          ...(repository ? { repository } : {}),
          ...(opts.target ? { targetBranch: opts.target } : {}),
          period: opts.period,
          bucket: opts.bucket,
        });
        const bucket = opts.bucket as InsightsBucket;
        cli.output(command).result(answer, () => [
          `${answer.queues.length} queue(s): ${answer.queues.join(", ") || "none"}`,
          ...formatTable(
            [
              bucket === "day" ? "DAY (UTC)" : "HOUR (UTC)",
              "MERGED",
              "FAILED",
              "TTM READY P50/P90 MIN",
              "TTM SUBMITTED P50/P90 MIN",
              "DEPTH MAX/END",
              "CI RUNS",
              "SAVED",
              "BISECT",
              "RESTARTS",
              "PAUSED/BROKEN MIN",
            ],
            answer.buckets.map((b) => row(b, bucket)),
          ),
        ]);
      },
    );
}
