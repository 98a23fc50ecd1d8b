import { createPrng } from "./prng.js";
import { timeToMerge, type SimulationReport } from "./simulate.js";
import type { SimulatedPr, Workload } from "./workload.js";

const MINUTE = 60_000;

/** The settings a plain queue reads; anything else (mode, priorities' lanes, quarantine) it ignores. */
export interface PlainQueueSettings {
  concurrency: number;
  /** Batch size; 1 tests every PR alone. */
  batchSize: number;
  batchingMaxWaitTimeMinutes: number;
}

interface Batch {
  prs: SimulatedPr[];
  bisection: boolean;
  /** The run testing this batch on top of every batch ahead of it; null until started (or restarted). */
  run: { endsAt: number; passes: boolean } | null;
}

/**
 * The plain speculative queue of bench/merge-efficiency/README.md ("reach"), written apart from the
 * planner so that `simulate --compare` has a fixed yardstick while the planner changes: one lane in
 * arrival order, lazy batches (a batch forms when a slot is free and `batchSize` PRs wait or the oldest
 * waited the max wait time), every batch tested on top of all batches ahead, results taken in queue
 * order. A failed head batch splits in halves tested again (bisection, a lone PR fails) and every run
 * behind it restarts. It knows the quarantine the way reach does: its flake rate is reduced by the
 * workload's quarantined share. Same fake CI as runSimulation: a run fails when a bad PR is in it or
 * ahead of it, or by a flake; it takes the longest test time of its own PRs; a merge takes mergeMinutes.
 */
export function runPlainQueue(workload: Workload, settings: PlainQueueSettings): SimulationReport {
  const rng = createPrng(workload.seed ^ 0x5eed);
  const flakeRate = workload.flakeRate * (1 - (workload.quarantinedShare ?? 0));
  const arrivals = [...workload.prs].sort((a, b) => a.arrivesAt - b.arrivesAt || a.number - b.number);
  const cancels = workload.prs.filter((p) => p.cancelAt !== null);
  cancels.sort((a, b) => (a.cancelAt as number) - (b.cancelAt as number));
  const waiting: SimulatedPr[] = [];
  const train: Batch[] = [];
  /** Bisection halves, tested alone on the target branch. */
  const aside: Batch[] = [];
  const merged = new Map<number, number>();
  const failed = new Set<number>();
  const cancelled = new Set<number>();
  let mainRuns = 0;
  let bisectionRuns = 0;
  let lastMergeEnd = 0;
  let lastEventAt = 0;
  let nextArrival = 0;
  let nextCancel = 0;
  let now = 0;

  const restartFrom = (index: number): void => {
    for (const batch of train.slice(index)) batch.run = null;
  };
  const cancel = (pr: SimulatedPr): void => {
    if (merged.has(pr.number) || failed.has(pr.number)) return;
    cancelled.add(pr.number);
    lastEventAt = now;
    const w = waiting.indexOf(pr);
    if (w >= 0) waiting.splice(w, 1);
    const b = train.findIndex((batch) => batch.prs.includes(pr));
    if (b < 0) return;
    const batch = train[b] as Batch;
    batch.prs = batch.prs.filter((p) => p !== pr);
    if (batch.prs.length === 0) train.splice(b, 1);
    restartFrom(b);
  };
  /** Takes the head's results while they are in: a pass merges, a failure steps aside to bisect. */
  const settleHead = (): void => {
    for (let head = train[0]; head?.run != null && head.run.endsAt <= now; head = train[0]) {
      train.shift();
      lastEventAt = now;
      if (head.run.passes) {
        lastMergeEnd = Math.max(now, lastMergeEnd) + workload.mergeMinutes * MINUTE;
        for (const pr of head.prs) merged.set(pr.number, lastMergeEnd);
        lastEventAt = lastMergeEnd;
        continue;
      }
      // Every run behind was tested on top of the failed batch.
      restartFrom(0);
      splitOrFail(head.prs);
    }
  };
  /** Bisection: a lone PR fails; more are split in halves, each tested on its own beside the train. */
  const splitOrFail = (prs: SimulatedPr[]): void => {
    if (prs.length === 1) {
      failed.add((prs[0] as SimulatedPr).number);
      return;
    }
    const half = Math.ceil(prs.length / 2);
    aside.push({ prs: prs.slice(0, half), bisection: true, run: null });
    aside.push({ prs: prs.slice(half), bisection: true, run: null });
  };
  /** A half that passed rejoins the queue first in line; one that failed is split again. */
  const settleAside = (): void => {
    for (const batch of aside.filter((b) => b.run !== null && b.run.endsAt <= now)) {
      aside.splice(aside.indexOf(batch), 1);
      lastEventAt = now;
      if (batch.run?.passes === true) waiting.unshift(...batch.prs);
      else splitOrFail(batch.prs);
    }
  };
  const running = (b: Batch): boolean => b.run !== null && b.run.endsAt > now;
  const inFlight = (): number => train.filter(running).length;
  /** A train batch is tested on top of every batch ahead of it. */
  const ahead = (index: number): SimulatedPr[] => train.slice(0, index + 1).flatMap((b) => b.prs);
  const start = (batch: Batch, tested: readonly SimulatedPr[]): void => {
    if (batch.bisection) bisectionRuns++;
    else mainRuns++;
    const flake = rng.chance(flakeRate);
    const minutes = Math.max(...batch.prs.map((p) => p.testMinutes));
    batch.run = { endsAt: now + minutes * MINUTE, passes: !flake && !tested.some((p) => p.bad) };
  };
  /** Starts runs in queue order while a slot is free, forming lazy batches from the waiting PRs. */
  const fillSlots = (): number | null => {
    for (const batch of aside) if (batch.run === null) start(batch, batch.prs);
    for (let i = 0; i < train.length && inFlight() < settings.concurrency; i++) {
      if ((train[i] as Batch).run === null) start(train[i] as Batch, ahead(i));
    }
    while (inFlight() < settings.concurrency && waiting.length > 0) {
      const oldest = waiting[0] as SimulatedPr;
      const deadline = oldest.arrivesAt + settings.batchingMaxWaitTimeMinutes * MINUTE;
      const alone = settings.batchSize === 1 || oldest.noBatch;
      if (!alone && waiting.length < settings.batchSize && now < deadline) return deadline;
      // A PR that asked not to be batched ends the batch before it.
      const loner = waiting.findIndex((p) => p.noBatch);
      const size = alone ? 1 : Math.min(settings.batchSize, loner < 0 ? waiting.length : loner);
      train.push({ prs: waiting.splice(0, size), bisection: false, run: null });
      start(train.at(-1) as Batch, ahead(train.length - 1));
    }
    return null;
  };

  for (;;) {
    while (nextArrival < arrivals.length && (arrivals[nextArrival] as SimulatedPr).arrivesAt <= now) {
      waiting.push(arrivals[nextArrival++] as SimulatedPr);
    }
    while (nextCancel < cancels.length && ((cancels[nextCancel] as SimulatedPr).cancelAt as number) <= now) {
      cancel(cancels[nextCancel++] as SimulatedPr);
    }
    settleHead();
    settleAside();
    const deadline = fillSlots();
    const next = Math.min(
      arrivals[nextArrival]?.arrivesAt ?? Infinity,
      cancels[nextCancel]?.cancelAt ?? Infinity,
      deadline ?? Infinity,
      ...[...train, ...aside].flatMap((b) => (b.run !== null && running(b) ? [b.run.endsAt] : [])),
    );
    if (next === Infinity) break;
    now = next;
  }

  const times = workload.prs
    .filter((p) => merged.has(p.number))
    .map((p) => ((merged.get(p.number) as number) - p.arrivesAt) / MINUTE)
    .sort((a, b) => a - b);
  const hours = lastEventAt / (60 * MINUTE);
  const finalStates = Object.fromEntries([
    ...[...merged.keys()].map((n) => [n, "MERGED"] as const),
    ...[...failed].map((n) => [n, "FAILED"] as const),
    ...[...cancelled].map((n) => [n, "CANCELLED"] as const),
  ]);
  return {
    prs: workload.prs.length,
    merged: merged.size,
    failed: failed.size,
    cancelled: cancelled.size,
    stuck: waiting.length + [...train, ...aside].reduce((sum, b) => sum + b.prs.length, 0),
    mainRuns,
    bisectionRuns,
    badMerged: workload.prs.filter((p) => p.bad && merged.has(p.number)).length,
    goodFailed: workload.prs.filter((p) => !p.bad && failed.has(p.number)).length,
    goodFailedByFlakes: workload.prs.filter((p) => !p.bad && failed.has(p.number)).length,
    runsPassedByQuarantine: 0,
    flakyRetries: 0,
    runsPerMergedPr: merged.size === 0 ? 0 : (mainRuns + bisectionRuns) / merged.size,
    mergedPerHour: hours === 0 ? 0 : merged.size / hours,
    timeToMergeMinutes: timeToMerge(times),
    hours,
    steps: 0,
    finalStates,
    mergeOrder: [...merged.keys()],
    refused: [],
    conflicted: [],
  };
}
