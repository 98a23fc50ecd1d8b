import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { DEFAULT_PRIORITY_NAME, PRIORITY_NAMES } from "@mainline/contract";
import { parseQueueSettings } from "@mainline/queue-coordinator/api/command-parser";
import { DEFAULT_QUEUE_SETTINGS, MAX_STACK_SIZE } from "@mainline/queue-coordinator/domain/index";
import type { SimulatedPr, SimulatedPriority, Workload } from "./workload.js";

const MINUTE = 60_000;
/** Bounds of a workload file: what `simulate --prs` allows, arrivals within a year. */
const MAX_PRS = 20_000;
const MAX_MINUTE = 525_600;
const PRIORITIES: readonly SimulatedPriority[] = PRIORITY_NAMES;

/** A workload file as read: the PRs to replay and the queue settings to replay them with. */
export interface WorkloadFile {
  workload: Workload;
  settings: Record<string, unknown>;
}

/** A workload file breaks a rule; `field` is its path in the file (e.g. `prs[3].testMinutes`). */
export class WorkloadFileError extends InvalidArgumentError {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function number(field: string, value: unknown, rule: (n: number) => boolean, says: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || !rule(value)) {
    throw new WorkloadFileError(field, `must be ${says}`);
  }
  return value;
}

function targetsOf(field: string, value: unknown): string[] | "ALL" {
  if (value === undefined || value === null) return [];
  if (value === "ALL") return "ALL";
  if (Array.isArray(value) && value.every((t) => typeof t === "string" && t.length > 0)) {
    return [...new Set(value as string[])].sort();
  }
  throw new WorkloadFileError(field, 'must be a list of target names or "ALL"');
}

function prOf(field: string, value: unknown, seen: Set<number>): SimulatedPr {
  if (!isObject(value)) throw new WorkloadFileError(field, "must be an object");
  const n = number(
    `${field}.number`,
    value.number,
    (x) => Number.isInteger(x) && x > 0 && x <= 1_000_000_000,
    "an integer in 1..1000000000",
  );
  if (seen.has(n)) throw new WorkloadFileError(`${field}.number`, `must be unique (${n} appears twice)`);
  seen.add(n);
  const arrives = number(
    `${field}.arrivesAtMinute`,
    value.arrivesAtMinute,
    (x) => x >= 0 && x <= MAX_MINUTE,
    `a number in 0..${MAX_MINUTE} (a year)`,
  );
  if (typeof value.bad !== "boolean") throw new WorkloadFileError(`${field}.bad`, "must be a boolean");
  const testMinutes = number(
    `${field}.testMinutes`,
    value.testMinutes,
    (x) => x > 0 && x <= 10_080,
    "a number > 0 and at most 10080 (a week)",
  );
  const priority = value.priority ?? DEFAULT_PRIORITY_NAME;
  if (typeof priority !== "string" || !(PRIORITIES as readonly string[]).includes(priority)) {
    throw new WorkloadFileError(`${field}.priority`, `must be one of ${PRIORITIES.join(", ")}`);
  }
  const noBatch = value.noBatch ?? false;
  if (typeof noBatch !== "boolean") throw new WorkloadFileError(`${field}.noBatch`, "must be a boolean");
  const cancel = value.cancelAtMinute ?? null;
  const cancelAt =
    cancel === null
      ? null
      : number(
          `${field}.cancelAtMinute`,
          cancel,
          (x) => x >= arrives && x <= MAX_MINUTE,
          `null or a number in arrivesAtMinute..${MAX_MINUTE}`,
        );
  return {
    number: n,
    arrivesAt: Math.round(arrives * MINUTE),
    bad: value.bad,
    testMinutes,
    priority: priority as SimulatedPriority,
    noBatch,
    targets: targetsOf(`${field}.impactedTargets`, value.impactedTargets),
    cancelAt: cancelAt === null ? null : Math.round(cancelAt * MINUTE),
    ...stackedOnOf(field, value.stackedOn, n),
  };
}

function stackedOnOf(field: string, value: unknown, n: number): { stackedOn?: number } {
  if (value === undefined || value === null) return {};
  const below = number(
    `${field}.stackedOn`,
    value,
    (x) => Number.isInteger(x) && x > 0 && x !== n,
    "another PR's number",
  );
  return { stackedOn: below };
}

/** Every `stackedOn` names a PR of the file, and no chain of them loops back or holds more than MAX_STACK_SIZE. */
function checkStacks(prs: readonly SimulatedPr[]): void {
  const byNumber = new Map(prs.map((p) => [p.number, p]));
  prs.forEach((pr, i) => {
    const field = `prs[${i}].stackedOn`;
    const chain = [pr.number];
    for (let below = pr.stackedOn; below !== undefined; below = byNumber.get(below)?.stackedOn) {
      if (!byNumber.has(below))
        throw new WorkloadFileError(field, `must name a PR of the file (${below} is not one)`);
      if (chain.includes(below))
        throw new WorkloadFileError(field, `must not loop (${[...chain, below].join(" -> ")})`);
      chain.push(below);
      if (chain.length > MAX_STACK_SIZE)
        throw new WorkloadFileError(field, `must make a stack of at most ${MAX_STACK_SIZE} PRs`);
    }
  });
}

/**
 * Reads a workload file (the format of bench/merge-efficiency/README.md). The settings are
 * checked as updateQueue would check them; the first broken rule throws WorkloadFileError naming
 * the field.
 */
export function parseWorkloadFile(text: string, fallbackName: string): WorkloadFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new WorkloadFileError("workload", `is not JSON (${(error as Error).message})`);
  }
  if (!isObject(data)) throw new WorkloadFileError("workload", "must be a JSON object");
  const name = data.name ?? fallbackName;
  if (typeof name !== "string" || name.length === 0) throw new WorkloadFileError("name", "must be a string");
  const flakeRate = number("flakeRate", data.flakeRate ?? 0, (x) => x >= 0 && x <= 1, "a number in 0..1");
  const quarantinedShare = number(
    "quarantinedShare",
    data.quarantinedShare ?? 0,
    (x) => x >= 0 && x <= 1,
    "a number in 0..1",
  );
  const seed = number("seed", data.seed ?? 1, Number.isSafeInteger, "an integer");
  const settings = data.settings ?? {};
  if (!isObject(settings)) throw new WorkloadFileError("settings", "must be an object of queue settings");
  checkSettings(settings);
  if (!Array.isArray(data.prs)) throw new WorkloadFileError("prs", "must be a list of pull requests");
  if (data.prs.length === 0 || data.prs.length > MAX_PRS) {
    throw new WorkloadFileError(
      "prs",
      `must list 1 to ${MAX_PRS} pull requests (it lists ${data.prs.length})`,
    );
  }
  const seen = new Set<number>();
  const prs = data.prs.map((pr, i) => prOf(`prs[${i}]`, pr, seen));
  checkStacks(prs);
  return { workload: { name, seed, flakeRate, quarantinedShare, mergeMinutes: 1, prs }, settings };
}

/**
 * `--set key=value` pairs (`mainline simulate`, the merge-efficiency benches): the value is JSON when it parses
 * (numbers, booleans, null), else a string. A pair without a key names `--set <pair>`.
 */
export function parseSettingOverrides(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new WorkloadFileError(`--set ${pair}`, "must be key=value, e.g. concurrency=8");
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // A bare word such as PARALLEL is a string.
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}

/** What a workload's settings (and `mainline simulate --set`) may name: the queue's settings, as `queue create` takes them. */
export const QUEUE_SETTING_KEYS: readonly string[] = Object.keys(DEFAULT_QUEUE_SETTINGS);

/** Queue settings as updateQueue takes them; an unknown or bad one names `settings.<field>`. */
export function checkSettings(settings: Readonly<Record<string, unknown>>): void {
  try {
    parseQueueSettings(settings);
  } catch (error) {
    if (error instanceof InvalidArgumentError) {
      throw new WorkloadFileError(`settings.${error.field}`, error.rule);
    }
    throw error;
  }
}
