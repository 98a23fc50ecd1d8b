import { readFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import {
  checkSettings,
  compareSettings,
  DEFAULT_WORKLOAD,
  describeComparison,
  describeSummary,
  parseWorkloadFile,
  QUEUE_SETTING_KEYS,
  runSimulation,
  summarize,
  WorkloadFileError,
  workloadFromSpec,
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
      "run several concurrency and batch sizes side by side; name the cheapest that keeps up",
    )
    .action(async (opts: SimulateOptions, command: Command) => {
      const { workload, settings } = opts.workload
        ? await readWorkload(resolve(cli.io.cwd, opts.workload))
        : { workload: generatedWorkload(opts), settings: { ...GENERATED_SETTINGS } };
      const merged = { ...settings, ...parseOverrides(opts.set ?? []) };
      const unknown = Object.keys(merged).find((key) => !QUEUE_SETTING_KEYS.includes(key));
      if (unknown !== undefined)
        throw new CliError(
          `settings.${unknown}: is not a queue setting (one of ${QUEUE_SETTING_KEYS.join(", ")})`,
        );
      try {
        checkSettings(merged);
      } catch (error) {
        if (error instanceof WorkloadFileError) throw new CliError(error.message);
        throw error;
      }
      if (opts.compare === true) {
        const comparison = compareSettings(workload, merged);
        cli.output(command).result(comparison, () => describeComparison(comparison));
        return;
      }
      const report = runSimulation({ settings: merged, workload });
      const summary = summarize(workload.name, merged, report);
      cli.output(command).result(summary, () => describeSummary(summary));
    });
}

interface SimulateOptions {
  workload?: string;
  set?: string[];
  compare?: boolean;
  prs: string;
  arrivalsPerHour: string;
  failureRate: string;
  flakeRate: string;
  testMinutes: string;
  seed: string;
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

/** `--set key=value`: the value is JSON when it parses (numbers, booleans, null), else a string. */
export function parseOverrides(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new CliError(`--set ${pair}: must be key=value, e.g. concurrency=8`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // A bare word such as PARALLEL is a string.
    }
    out[`${pair.slice(0, eq)}`] = value;
  }
  return out;
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
    arrivalsPerHour: flagNumber("--arrivals-per-hour", opts.arrivalsPerHour, (n) => n > 0, "a number > 0"),
    failureProbability: flagNumber(
      "--failure-rate",
      opts.failureRate,
      (n) => n >= 0 && n <= 1,
      "a number in 0..1",
    ),
    flakeProbability: flagNumber("--flake-rate", opts.flakeRate, (n) => n >= 0 && n <= 1, "a number in 0..1"),
    testMinutes: { min, max },
    seed: flagNumber("--seed", opts.seed, Number.isInteger, "an integer"),
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
