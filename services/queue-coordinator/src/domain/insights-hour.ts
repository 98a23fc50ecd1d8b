import { TIME_TO_MERGE_BIN_RATIO } from "@mainline/contract";
import type { Decision, Notice } from "./decisions.js";
import type { PlannerState } from "./planner-state.js";
import type { PullRequestEntry } from "./pull-request.js";
import { RESTART_REASONS } from "./reasons.js";

export const HOUR_MS = 3_600_000;

/**
 * What one queue did in one hour (issue 29), counted as its steps commit: the hour still open lives in the queue
 * document and is written with each step (so a count is never lost nor made twice), a finished hour is sealed
 * and stored as a record of its own. Percentiles are kept as histograms so hours and queues add up.
 */
export interface InsightsHour {
  /** The hour's start, ms since the epoch (UTC, on the hour). */
  hour: number;
  merged: number;
  failed: Record<string, number>;
  /** Time to merge in histogram bins (see timeToMergeBin), from submission and from first ready. */
  ttmSubmitted: Record<string, number>;
  ttmReady: Record<string, number>;
  depthMax: number;
  depthEnd: number;
  ciRuns: number;
  /** One run per PR that merged or failed: what testing each alone, once, would have cost. */
  ciRunsAlone: number;
  bisectionRuns: number;
  restarts: Record<string, number>;
  pausedMs: number;
  brokenMs: number;
  /** The queue as the hour's last step left it: an hour without a step inherits it (paused all hour, say). */
  pausedAtEnd: boolean;
  brokenAtEnd: boolean;
  /** The last step counted (or the hour's start): paused and broken time is counted up to each step. */
  lastAt: number;
}

const RESTARTS: ReadonlySet<string> = new Set(RESTART_REASONS);
const LOG_RATIO = Math.log(TIME_TO_MERGE_BIN_RATIO);

export const hourOf = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

/** The histogram bin of a duration: bin b holds (ratio^(b-1), ratio^b] seconds; under a second is bin 0. */
export function timeToMergeBin(ms: number): number {
  const seconds = ms / 1000;
  return seconds <= 1 ? 0 : Math.ceil(Math.log(seconds) / LOG_RATIO);
}

/** A bin's representative duration in ms: its geometric middle. */
export const binMiddleMs = (bin: number): number =>
  bin === 0 ? 500 : 1000 * Math.pow(TIME_TO_MERGE_BIN_RATIO, bin - 0.5);

export function emptyHour(
  hour: number,
  carried: Pick<InsightsHour, "pausedAtEnd" | "brokenAtEnd" | "depthEnd">,
) {
  const record: InsightsHour = {
    hour,
    merged: 0,
    failed: {},
    ttmSubmitted: {},
    ttmReady: {},
    depthMax: carried.depthEnd,
    depthEnd: carried.depthEnd,
    ciRuns: 0,
    ciRunsAlone: 0,
    bisectionRuns: 0,
    restarts: {},
    pausedMs: 0,
    brokenMs: 0,
    pausedAtEnd: carried.pausedAtEnd,
    brokenAtEnd: carried.brokenAtEnd,
    lastAt: hour,
  };
  return record;
}

const bump = (counts: Record<string, number>, key: string | number, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by;
};

/** Paused and broken time from the last counted moment up to `until`, in the state the last step left. */
function countHeldTime(h: InsightsHour, until: number): void {
  const span = Math.max(0, until - h.lastAt);
  if (h.pausedAtEnd) h.pausedMs += span;
  if (h.brokenAtEnd) h.brokenMs += span;
  h.lastAt = Math.max(h.lastAt, until);
}

/** When the PR first became ready (entered the queue order); its submission when it never waited. */
function readyAt(entry: PullRequestEntry): number {
  return entry.history.find((t) => t.to === "PENDING")?.at ?? entry.submittedAt;
}

export interface InsightsStep {
  now: number;
  before: PlannerState;
  after: PlannerState;
  decisions: readonly Decision[];
  notices: readonly Notice[];
}

/**
 * Counts one committed step into the open hour. A step in a later hour seals the open one first (returned in
 * `sealed`, to be stored); hours in between without a step are not made here: a reader carries the sealed
 * hour's end state (depth, paused, broken) through them.
 */
export function countStep(
  open: InsightsHour | null | undefined,
  step: InsightsStep,
): { open: InsightsHour; sealed: InsightsHour[] } {
  const sealed: InsightsHour[] = [];
  const hour = hourOf(step.now);
  let current: InsightsHour;
  if (!open) {
    current = emptyHour(hour, {
      pausedAtEnd: step.before.queueState === "PAUSED",
      brokenAtEnd: Boolean(step.before.targetBroken),
      depthEnd: Object.keys(step.before.prs).length,
    });
    current.lastAt = step.now;
  } else if (open.hour < hour) {
    const closing = structuredClone(open);
    countHeldTime(closing, open.hour + HOUR_MS);
    sealed.push(closing);
    current = emptyHour(hour, closing);
  } else {
    current = structuredClone(open);
  }
  countHeldTime(current, step.now);
  for (const d of step.decisions) {
    if (d.type !== "START_TEST_RUN") continue;
    current.ciRuns += 1;
    if (d.kind === "bisection") current.bisectionRuns += 1;
  }
  for (const n of step.notices) {
    if (n.type !== "PR_STATE_CHANGED") continue;
    if (RESTARTS.has(n.reason)) bump(current.restarts, n.reason);
    if (n.to === "MERGED") {
      current.merged += 1;
      current.ciRunsAlone += 1;
      const entry = n.finalEntry;
      if (entry) {
        bump(current.ttmSubmitted, timeToMergeBin(n.at - entry.submittedAt));
        bump(current.ttmReady, timeToMergeBin(n.at - readyAt(entry)));
      }
    } else if (n.to === "FAILED") {
      current.ciRunsAlone += 1;
      bump(current.failed, n.reason);
    }
  }
  const depth = Object.keys(step.after.prs).length;
  current.depthEnd = depth;
  current.depthMax = Math.max(current.depthMax, depth);
  current.pausedAtEnd = step.after.queueState === "PAUSED";
  current.brokenAtEnd = Boolean(step.after.targetBroken);
  return { open: current, sealed };
}
