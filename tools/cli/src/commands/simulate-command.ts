import { readFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import {
  checkSettings,
  CompareOptionError,
  compareSettings,
  DEFAULT_WORKLOAD,
  describeComparison,
  describeSummary,
  parseSettingOverrides,
  parseWorkloadFile,
  QUEUE_SETTING_KEYS,
  runSimulation,
  summarize,
  WorkloadFileError,
  workloadFromSpec,
  type CompareMode,
  type CompareOptions,
  type Workload,
  type WorkloadSpec,
} from "@mainline/sim";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { collect } from "../command-options.js";

/** Settings of a generated workload when neither the file nor --set gives any. */
const GENERATED_SETTINGS = { concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1 };

/**
 * `mainline simulate`: the real planner in virtual time over a workload file or a generated load,
 * so that a user can choose settings without a server or CI.
 */
export function registerSimulateCommand(program: Command, cli: CliContext): void {
  program
    .command("simulate")
    .description("run the queue planner in virtual time over a workload (no server needed)")
    .option("--workload <file>", "a workload file (format: tools/bench/merge-efficiency/README.md)")
    .option("--set <key=value>", "override one queue setting, e.g. concurrency=8 (repeat for more)", collect)
    .option("--prs <n>", "generated workload: number of PRs", "300")
    .option("--arrivals-per-hour <n>", "generated workload: mean PR arrivals per hour", "20")
    .option("--failure-rate <p>", "generated workload: chance that a PR breaks the tests", "0.05")
    .option("--flake-rate <p>", "generated workload: chance that a run fails for no reason", "0.02")
    .option("--test-minutes <min-max>", "generated workload: a PR's test time range in minutes", "25-35")
    .option("--seed <n>", "generated workload: random seed", "1")
    .option(
      "--compare",
      "search concurrency x batch size x mode; name the cheapest that keeps up and its gain on the plain queue",
    )
    .option(
      "--concurrency <list>",
      "with --compare: concurrencies to search, e.g. 2,4,8 (default 1,2,4,8,16)",
    )
    .option(
      "--batch-sizes <list>",
      "with --compare: batch sizes to search, 1 = no batching (default 1,2,4,8)",
    )
    .option("--modes <list>", "with --compare: SINGLE and/or PARALLEL (default both when PRs name targets)")
    .option(
      "--max-p50 <minutes>",
      "with --compare: keeping up needs p50 time to merge at most this (default 4 test runs)",
    )
    .option(
      "--flake-draws <n>",
      "with --compare: judge each setting over N draws of the flakes, 1-10 (default 1)",
    )
    .action(async (opts: SimulateOptions, command: Command) => {
      const { workload, settings } = opts.workload
        ? await readWorkload(resolve(cli.io.cwd, opts.workload))
        : { workload: generatedWorkload(opts), settings: { ...GENERATED_SETTINGS } };
      const merged = { ...settings, ...asCliError(() => parseSettingOverrides(opts.set ?? [])) };
      const unknown = Object.keys(merged).find((key) => !QUEUE_SETTING_KEYS.includes(key));
      if (unknown !== undefined)
        throw new CliError(
          `settings.${unknown}: is not a queue setting (one of ${QUEUE_SETTING_KEYS.join(", ")})`,
        );
      asCliError(() => checkSettings(merged));
      const searchFlags = compareFlags(opts);
      if (opts.compare === true) {
        const comparison = compareOrExplain(() => compareSettings(workload, merged, searchFlags));
        cli.output(command).result(comparison, () => describeComparison(comparison));
        return;
      }
      const stray = (["concurrency", "batchSizes", "modes", "maxP50", "flakeDraws"] as const).find(
        (k) => opts[k] !== undefined,
      );
      if (stray !== undefined) throw new CliError(`${FLAG_OF[stray] ?? stray}: only with --compare`);
      const report = runSimulation({ settings: merged, workload });
      const summary = summarize(workload.name, merged, report);
      cli.output(command).result(summary, () => describeSummary(summary));
    });
}

interface SimulateOptions {
  workload?: string;
  set?: string[];
  compare?: boolean;
  concurrency?: string;
  batchSizes?: string;
  modes?: string;
  maxP50?: string;
  flakeDraws?: string;
  prs: string;
  arrivalsPerHour: string;
  failureRate: string;
  flakeRate: string;
  testMinutes: string;
  seed: string;
}

/** The CLI flag of each search option, so an error names what the user typed. */
const FLAG_OF: Record<string, string> = {
  concurrency: "--concurrency",
  batchSizes: "--batch-sizes",
  modes: "--modes",
  maxP50Minutes: "--max-p50",
  maxP50: "--max-p50",
  flakeDraws: "--flake-draws",
  grid: "--compare",
};

function compareOrExplain<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof CompareOptionError) {
      throw new CliError(`${FLAG_OF[error.field] ?? error.field}: ${error.rule}`);
    }
    throw error;
  }
}

/** A comma-separated list of whole numbers; its range is the simulator's to check. */
function numberList(flag: string, text: string): number[] {
  const items = text.split(",").map((t) => t.trim());
  if (items.some((t) => !/^\d{1,6}$/.test(t))) {
    throw new CliError(`${flag} ${text}: must be whole numbers separated by commas, e.g. 2,4,8`);
  }
  return items.map(Number);
}

function compareFlags(opts: SimulateOptions): CompareOptions {
  const grid: CompareOptions["grid"] = {
    ...(opts.concurrency !== undefined && { concurrency: numberList("--concurrency", opts.concurrency) }),
    ...(opts.batchSizes !== undefined && { batchSizes: numberList("--batch-sizes", opts.batchSizes) }),
    ...(opts.modes !== undefined && {
      modes: opts.modes.split(",").map((m) => m.trim().toUpperCase()) as CompareMode[],
    }),
  };
  return {
    ...(Object.keys(grid).length > 0 && { grid }),
    ...(opts.maxP50 !== undefined && {
      maxP50Minutes: flagNumber("--max-p50", opts.maxP50, () => true, "a number of minutes"),
    }),
    ...(opts.flakeDraws !== undefined && {
      flakeDraws: flagNumber("--flake-draws", opts.flakeDraws, () => true, "a whole number"),
    }),
  };
}

async function readWorkload(path: string): Promise<ReturnType<typeof parseWorkloadFile>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(
      `--workload: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  try {
    return parseWorkloadFile(text, basename(path).replace(/\.json$/, ""));
  } catch (error) {
    if (error instanceof WorkloadFileError) throw new CliError(`${path}: ${error.message}`);
    throw error;
  }
}

/** A workload rule broken by a flag is the CLI's one-line error. */
function asCliError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof WorkloadFileError) throw new CliError(error.message);
    throw error;
  }
}

function flagNumber(flag: string, text: string, ok: (n: number) => boolean, says: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || !ok(n))
    throw new CliError(`${flag} ${text}: must be ${says}`);
  return n;
}

function generatedWorkload(opts: SimulateOptions): Workload {
  const range = /^(\d+)(?:-(\d+))?$/.exec(opts.testMinutes.trim());
  const min = Number(range?.[1] ?? NaN);
  const max = Number(range?.[2] ?? range?.[1] ?? NaN);
  if (range === null || min < 1 || max < min) {
    throw new CliError(`--test-minutes ${opts.testMinutes}: must be MIN-MAX whole minutes, 1 <= MIN <= MAX`);
  }
  const spec: WorkloadSpec = {
    ...DEFAULT_WORKLOAD,
    prCount: flagNumber(
      "--prs",
      opts.prs,
      (n) => Number.isInteger(n) && n >= 1 && n <= 20_000,
      "a whole number in 1..20000",
    ),
    arrivalsPerHour: flagNumber(
      "--arrivals-per-hour",
      opts.arrivalsPerHour,
      (n) => n > 0 && n <= 3600,
      "a number > 0 and at most 3600",
    ),
    failureProbability: flagNumber(
      "--failure-rate",
      opts.failureRate,
      (n) => n >= 0 && n <= 1,
      "a number in 0..1",
    ),
    flakeProbability: flagNumber("--flake-rate", opts.flakeRate, (n) => n >= 0 && n <= 1, "a number in 0..1"),
    testMinutes: { min, max },
    seed: flagNumber("--seed", opts.seed, Number.isSafeInteger, "an integer"),
    // A plain load: one lane's worth of medium PRs; files describe anything richer.
    urgentProbability: 0,
    noBatchProbability: 0,
    cancelProbability: 0,
    targets: { count: 1, perPr: 1, allProbability: 0, noneProbability: 0 },
  };
  return workloadFromSpec(
    spec,
    `generated (${spec.prCount} PRs, ${spec.arrivalsPerHour}/h, seed ${spec.seed})`,
  );
}
