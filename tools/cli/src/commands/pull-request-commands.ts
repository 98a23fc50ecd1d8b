import { priorityLabel, PRIORITY_RULE } from "@mainline/contract";
import type { Command } from "commander";
import type { Queue, SubmittedPullRequest } from "../api/api-types.js";
import {
  DEFAULT_OUTAGE_TOLERANCE_MS,
  pullRequestRow,
  watchPullRequests,
} from "../app/watch-pull-requests.js";
import type { CliContext } from "../cli-context.js";
import { CliError, EXIT } from "../cli-error.js";
import { withQueueOptions, wholeNumber } from "../command-options.js";
import { formatRepositoryRef } from "../domain/repository-ref.js";
import { parsePullRequestNumber, parsePullRequestRef } from "../domain/pull-request-ref.js";
import { stateDetail } from "../domain/pull-request-states.js";
import { timelineLines } from "../output/pull-request-timeline.js";

/** submit, cancel, restart and status: one pull request in one queue. */
export function registerPullRequestCommands(program: Command, cli: CliContext): void {
  withQueueOptions(
    program
      .command("submit")
      .description("submit a pull request to the queue")
      .argument("<pr>", "the PR number")
      .option("--priority <priority>", `${PRIORITY_RULE} (0 is most urgent)`)
      .option("--no-batch", "test this PR on its own, never in a batch")
      .option(
        "--no-stack",
        "a stacked PR does not queue the PRs below it; it waits (NOT_READY) until they are queued",
      )
      .option(
        "--wait",
        "show the PR's progress until it is merged, failed or cancelled (exit 1 unless merged)",
      )
      .option("--timeout <minutes>", "with --wait: give up after this many minutes", wholeNumber(1), 60)
      .option(...retryForOption),
  ).action(async (prText: string, opts: SubmitOptions, command: Command) => {
    const number = parsePullRequestNumber(prText);
    const queue = cli.queueKey(command);
    const api = cli.api();
    const out = cli.output(command);
    await api.post("/submitPullRequest", {
      ...queue,
      pr: { number },
      ...(opts.priority !== undefined ? { priority: priorityValue(opts.priority) } : {}),
      ...(opts.batch === false ? { noBatch: true } : {}),
      ...(opts.stack === false ? { includeStack: false } : {}),
    });
    if (!opts.wait) {
      out.result(
        { submitted: true, pr: number },
        () => `Submitted PR #${number} to ${formatRepositoryRef(queue.repo)} → ${queue.targetBranch}`,
      );
      return;
    }
    out.note(`Submitted PR #${number}; waiting for it to finish (Ctrl-C stops waiting, not the PR)`);
    const [final] = await watchPullRequests({
      api,
      queue,
      prs: [{ number }],
      display: cli.display(command),
      timeoutMs: opts.timeout * 60_000,
      outageToleranceMs: opts.retryFor * 1000,
      note: (line) => out.note(line),
    });
    if (!final) throw new CliError(`PR #${number} vanished while waiting`, EXIT.failed);
    out.result(final, () => describe(final));
    if (final.state !== "MERGED") cli.exitCode = EXIT.failed;
  });

  withQueueOptions(
    program
      .command("cancel")
      .description("take a pull request out of the queue")
      .argument("<pr>", "the PR number"),
  ).action(async (prText: string, _opts: unknown, command: Command) => {
    const number = parsePullRequestNumber(prText);
    const queue = cli.queueKey(command);
    await cli.api().post("/cancelPullRequest", { ...queue, pr: { number } });
    cli.output(command).result({ cancelled: true, pr: number }, () => `Cancelled PR #${number}`);
  });

  withQueueOptions(
    program
      .command("restart")
      .description("re-run the tests of a pull request that is in the queue")
      .argument("<pr>", "the PR number"),
  ).action(async (prText: string, _opts: unknown, command: Command) => {
    const number = parsePullRequestNumber(prText);
    const queue = cli.queueKey(command);
    await cli.api().post("/restartTestsOnPullRequest", { ...queue, pr: { number } });
    cli
      .output(command)
      .result({ restarted: true, pr: number }, () => `Restarting the tests of PR #${number}`);
  });

  withQueueOptions(
    program
      .command("status")
      .description("show pull requests in the queue, by number or head branch")
      .argument("<pr...>", "PR numbers or head branch names")
      .option(
        "--wait",
        "show their progress until every one is merged, failed or cancelled (exit 1 unless all merged)",
      )
      .option("--timeout <minutes>", "with --wait: give up after this many minutes", wholeNumber(1), 60)
      .option(...retryForOption),
  ).action(async (prTexts: string[], opts: WaitOptions, command: Command) => {
    const refs = prTexts.map(parsePullRequestRef);
    const queue = cli.queueKey(command);
    const api = cli.api();
    const out = cli.output(command);
    const prs = opts.wait
      ? await watchPullRequests({
          api,
          queue,
          prs: refs,
          display: cli.display(command),
          timeoutMs: opts.timeout * 60_000,
          outageToleranceMs: opts.retryFor * 1000,
          note: (line) => out.note(line),
        })
      : await withBatches(
          await Promise.all(
            refs.map((pr) => api.post<SubmittedPullRequest>("/getSubmittedPullRequest", { ...queue, pr })),
          ),
          () => api.post<Queue>("/getQueue", queue),
        );
    out.result(prs.length === 1 ? prs[0] : prs, () =>
      prs.length === 1 ? describe(prs[0]!) : prs.map((pr) => `${pullRequestRow(pr)}${batchSuffix(pr)}`),
    );
    // As with submit --wait: a script that waited learns from the code whether everything merged.
    if (opts.wait && prs.some((pr) => pr.state !== "MERGED")) cli.exitCode = EXIT.failed;
  });
}

interface WaitOptions {
  wait?: boolean;
  timeout: number;
  retryFor: number;
}

interface SubmitOptions extends WaitOptions {
  priority?: string;
  batch: boolean;
  stack: boolean;
}

/** A restarting gateway or service is waited out (saying so on stderr); exit 3 once this runs out. */
const retryForOption = [
  "--retry-for <seconds>",
  "with --wait: while Mainline is unreachable or restarting (503), keep retrying this long, then exit 3",
  wholeNumber(1),
  DEFAULT_OUTAGE_TOLERANCE_MS / 1000,
] as const;

/** Names pass through (the API checks them); a number must travel as a JSON number. */
function priorityValue(text: string): string | number {
  return /^\d+$/.test(text.trim()) ? Number(text) : text;
}

function describe(pr: Batched): string[] {
  const detail = stateDetail(pr);
  return [
    `PR #${pr.prNumber} ${pr.state}${detail ? ` (${detail})` : ""}: ${pr.prTitle}`,
    `  author ${pr.prAuthor || "-"} · head ${pr.prSha ? pr.prSha.slice(0, 12) : "-"} · base ${pr.prBaseBranch || "-"}` +
      ` · priority ${pr.priorityName} (${pr.priorityValue})`,
    `  ${pr.isCurrentlySubmittedToQueue ? "in the queue" : "not in the queue"} · state since ${pr.stateChangedAt}`,
    ...(pr.batchId !== undefined ? [`  ${batchText(pr)}`] : []),
    // The failing run's output (or its CI's page): the first place to look.
    ...(pr.failureDetailsUrl ? [`  why it failed: ${pr.failureDetailsUrl}`] : []),
    ...(pr.queuePosition !== undefined ? [`  ${estimateLine(pr)}`] : []),
    ...(pr.stack ? [`  ${stackLine(pr.stack, pr.prNumber)}`] : []),
    ...pr.priorityChanges.map(
      (c) =>
        `  priority ${priorityLabel(c.from)} → ${priorityLabel(c.to)} at ${c.at}${c.by ? ` by ${c.by}` : ""}`,
    ),
    ...timelineLines(pr),
  ];
}

/** The stack bottom to top, this PR in brackets: "stack #11 ← [#12] ← #13". */
export function stackLine(stack: NonNullable<SubmittedPullRequest["stack"]>, pr: number): string {
  const chain = [...stack.below.map((n) => `#${n}`), `[#${pr}]`, ...stack.above.map((n) => `#${n}`)];
  return `stack ${chain.join(" ← ")} (bottom first; each sits on the one before)`;
}

type Batched = SubmittedPullRequest &
  Pick<Queue["enqueuedPullRequests"][number], "batchId" | "batchStatus" | "lane">;

/**
 * The PRs with the batch the planner put each in, its status and its lane, as the queue's page shows them: only
 * the queue knows them (getQueue), so it is read once for all the PRs that are in it.
 */
async function withBatches(prs: SubmittedPullRequest[], queue: () => Promise<Queue>): Promise<Batched[]> {
  if (!prs.some((pr) => pr.isCurrentlySubmittedToQueue)) return prs;
  const enqueued = new Map((await queue()).enqueuedPullRequests.map((e) => [e.prNumber, e]));
  return prs.map((pr) => {
    const entry = pr.isCurrentlySubmittedToQueue ? enqueued.get(pr.prNumber) : undefined;
    if (entry?.batchId === undefined) return pr;
    return {
      ...pr,
      batchId: entry.batchId,
      ...(entry.batchStatus !== undefined ? { batchStatus: entry.batchStatus } : {}),
      ...(entry.lane !== undefined ? { lane: entry.lane } : {}),
    };
  });
}

function batchText(pr: Batched): string {
  return `batch ${pr.batchId}${pr.batchStatus ? ` (${pr.batchStatus})` : ""}${pr.lane ? ` · lane ${pr.lane}` : ""}`;
}

function batchSuffix(pr: Batched): string {
  return pr.batchId !== undefined ? `  ${batchText(pr)}` : "";
}

/** Position, and the estimate when the gateway knows the queue's recent run durations. */
function estimateLine(pr: SubmittedPullRequest): string {
  const position = `position ${pr.queuePosition}`;
  if (!pr.estimatedMergeAt)
    return `${position} · estimated merge: unknown until a run of this queue finishes`;
  return `${position} · estimated merge ${pr.estimatedMergeAt} (median run ${pr.medianRunSeconds} s)`;
}
