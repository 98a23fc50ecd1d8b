import type { Command } from "commander";
import type { Queue, QueueKey, QueueSettings } from "../api/api-types.js";
import type { CliContext } from "../cli-context.js";
import { collect, onOffFollow, withQueueOptions, wholeNumber } from "../command-options.js";
import { formatRepositoryRef } from "../domain/repository-ref.js";
import { formatTable } from "../output/table.js";

/** `mainline queue get|create|update|pause|resume|drain|delete`. */
export function registerQueueCommands(program: Command, cli: CliContext): void {
  const queue = program.command("queue").description("create, inspect, configure and delete a queue");

  withQueueOptions(
    queue.command("get").description("show the queue's state, settings and pull requests"),
  ).action(async (_opts: unknown, command: Command) => {
    const key = cli.queueKey(command);
    const found = await cli.api().post<Queue>("/getQueue", key);
    cli.output(command).result(found, () => describeQueue(key, found));
  });

  withSettingOptions(
    withQueueOptions(queue.command("create").description("create a queue for a branch")),
  ).action(async (opts: SettingOptions, command: Command) => {
    const key = cli.queueKey(command);
    const api = cli.api();
    await api.post("/createQueue", { ...key, ...settingsFrom(opts) });
    const created = await api.post<Queue>("/getQueue", key);
    cli.output(command).result(created, () => [`Created the queue`, ...describeSettings(key, created)]);
  });

  withSettingOptions(
    withQueueOptions(
      queue.command("update").description("change some settings; the others keep their value"),
    ),
  ).action(async (opts: SettingOptions, command: Command) => {
    const key = cli.queueKey(command);
    const updated = await cli.api().post<QueueSettings>("/updateQueue", { ...key, ...settingsFrom(opts) });
    cli.output(command).result(updated, () => [`Updated the queue`, ...describeSettings(key, updated)]);
  });

  const states = [
    ["pause", "PAUSED", "stop starting tests (running ones finish)"],
    ["resume", "RUNNING", "start testing and merging again"],
    ["drain", "DRAINING", "finish the PRs in the queue but accept no new ones"],
  ] as const;
  for (const [name, state, description] of states) {
    withQueueOptions(queue.command(name).description(description)).action(
      async (_opts: unknown, command: Command) => {
        const key = cli.queueKey(command);
        const updated = await cli.api().post<QueueSettings>("/updateQueue", { ...key, state });
        cli
          .output(command)
          .result(
            updated,
            () => `${formatRepositoryRef(key.repo)} → ${key.targetBranch} is now ${updated.state}`,
          );
      },
    );
  }

  withQueueOptions(queue.command("delete").description("delete an empty queue")).action(
    async (_opts: unknown, command: Command) => {
      const key = cli.queueKey(command);
      await cli.api().post("/deleteQueue", key);
      cli
        .output(command)
        .result(
          { deleted: true },
          () => `Deleted the queue ${formatRepositoryRef(key.repo)} → ${key.targetBranch}`,
        );
    },
  );
}

interface SettingOptions {
  mode?: string;
  concurrency?: number;
  batch?: boolean;
  batchingMinSize?: number;
  batchingMode?: string;
  bisectionMode?: string;
  batchingMaxWait?: number;
  testingTimeout?: number;
  pendingFailureDepth?: number;
  maxStackSize?: number;
  optimisticMerge?: boolean;
  bisectionConcurrency?: number;
  mergeMethod?: string;
  requiredStatus?: string[];
  directMergeMode?: string;
  optimizationMode?: string;
  ignoreQuarantinedTests?: boolean | null;
  retryKnownFlakyTests?: boolean | null;
  holdOnBrokenTarget?: boolean | null;
}

function withSettingOptions(command: Command): Command {
  return command
    .option("--mode <mode>", "SINGLE or PARALLEL")
    .option("--concurrency <n>", "test runs at once", wholeNumber(1))
    .option("--batch", "test several PRs together")
    .option("--no-batch", "test each PR on its own")
    .option(
      "--batching-min-size <n>",
      "PRs a batch waits for (with ADAPTIVE batching, the most)",
      wholeNumber(1),
    )
    .option("--batching-mode <mode>", "FIXED, or ADAPTIVE: batch sizes follow the failure rate and backlog")
    .option(
      "--bisection-mode <mode>",
      "ISOLATED: a failed batch's halves are tested on the target alone, a PR fails only on its own run; or STACKED",
    )
    .option("--batching-max-wait <minutes>", "longest wait for a full batch", wholeNumber(1))
    .option("--testing-timeout <minutes>", "fail a test run after this long (0: no limit)", wholeNumber(0))
    .option(
      "--pending-failure-depth <n>",
      "PRs behind a failure that keep testing (0 disables)",
      wholeNumber(0),
    )
    .option(
      "--max-stack-size <n>",
      "most PRs one stack may hold, 0..32 (0 refuses stacked PRs)",
      wholeNumber(0),
    )
    .option("--optimistic-merge", "merge PRs whose tests a later passing run covered")
    .option("--no-optimistic-merge", "never merge optimistically")
    .option("--bisection-concurrency <n>", "bisection test runs at once", wholeNumber(1))
    .option("--merge-method <method>", "MERGE_COMMIT, SQUASH or REBASE")
    .option("--required-status <context>", "a required status check (repeat for more)", collect)
    .option("--direct-merge-mode <mode>", "OFF or ALWAYS")
    .option("--optimization-mode <mode>", "OFF or BISECTION_SKIP_REDUNDANT_TESTS")
    .option(
      "--ignore-quarantined-tests <on|off|follow>",
      "a run failing only on quarantined tests passes (follow: as the repository's quarantining)",
      onOffFollow,
    )
    .option(
      "--retry-known-flaky-tests <on|off|follow>",
      "retry once a run failing only on known flaky tests",
      onOffFollow,
    )
    .option(
      "--hold-on-broken-target <on|off|follow>",
      "a test failing on the target holds new runs instead of failing PRs",
      onOffFollow,
    );
}

/** Only what was given: updateQueue leaves absent settings as they are. */
function settingsFrom(opts: SettingOptions): Record<string, unknown> {
  const settings: Record<string, unknown> = {
    mode: opts.mode,
    concurrency: opts.concurrency,
    batch: opts.batch,
    batchingMinSize: opts.batchingMinSize,
    batchingMode: opts.batchingMode,
    bisectionMode: opts.bisectionMode,
    batchingMaxWaitTimeMinutes: opts.batchingMaxWait,
    testingTimeoutMinutes: opts.testingTimeout,
    pendingFailureDepth: opts.pendingFailureDepth,
    maxStackSize: opts.maxStackSize,
    canOptimisticallyMerge: opts.optimisticMerge,
    bisectionConcurrency: opts.bisectionConcurrency,
    mergeMethod: opts.mergeMethod,
    requiredStatuses: opts.requiredStatus,
    directMergeMode: opts.directMergeMode,
    optimizationMode: opts.optimizationMode,
    ignoreQuarantinedTests: opts.ignoreQuarantinedTests,
    retryKnownFlakyTests: opts.retryKnownFlakyTests,
    holdOnBrokenTarget: opts.holdOnBrokenTarget,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

function describeSettings(key: QueueKey, q: QueueSettings): string[] {
  const size =
    q.batchingMode === "ADAPTIVE"
      ? `adaptive size up to ${q.batchingMinSize}`
      : `min size ${q.batchingMinSize}`;
  const batching = q.batch
    ? `batching on (${size}, max wait ${q.batchingMaxWaitTimeMinutes} min)`
    : "batching off";
  return [
    `${formatRepositoryRef(key.repo)} → ${q.branch}: ${q.state}, ${q.mode}, concurrency ${q.concurrency}`,
    `  ${batching} · pending failure depth ${q.pendingFailureDepth} · optimistic merge ${q.canOptimisticallyMerge ? "on" : "off"}`,
    `  merge method ${q.mergeMethod} · testing timeout ${q.testingTimeoutMinutes ? `${q.testingTimeoutMinutes} min` : "none"}` +
      ` · bisection ${(q.bisectionMode ?? "STACKED").toLowerCase()}, concurrency ${q.bisectionConcurrency} · optimization ${q.optimizationMode}` +
      (q.requiredStatuses.length > 0 ? ` · required statuses ${q.requiredStatuses.join(", ")}` : ""),
    `  failed tests: quarantined ${switchWord(q.ignoreQuarantinedTests, "ignored")} · known flaky ${switchWord(q.retryKnownFlakyTests, "retried once")}` +
      ` · broken target ${switchWord(q.holdOnBrokenTarget, "holds new runs")}`,
  ];
}

/** A coordinator that predates the settings sends none: they follow the repository's quarantining. */
function switchWord(value: boolean | null | undefined, on: string): string {
  return value === true ? on : value === false ? "off" : `${on} while quarantining is on`;
}

function describeQueue(key: QueueKey, q: Queue): string[] {
  const prs = q.enqueuedPullRequests;
  const lines = describeSettings(key, q);
  if (q.targetBroken)
    lines.push(`  HELD: ${q.targetBroken.reason} (mainline queue resume to start runs anyway)`);
  if (prs.length === 0) return [...lines, "No pull requests in the queue."];
  const rows = prs.map((pr) => [
    `#${pr.prNumber}`,
    pr.state,
    pr.priorityName,
    pr.testRunId ?? "",
    pr.prTitle,
  ]);
  return [
    ...lines,
    `${prs.length} pull request(s):`,
    ...formatTable(["PR", "STATE", "PRIORITY", "TEST RUN", "TITLE"], rows),
  ];
}
