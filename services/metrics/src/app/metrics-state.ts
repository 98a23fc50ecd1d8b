import { ConflictError } from "@mainline/kit/errors/index";
import {
  planReconcile,
  runKeyOf,
  timelineKeyOf,
  type CoordinatorSnapshot,
  type ReconcilePlan,
} from "../domain/coordinator-snapshot.js";
import type { MetricsView } from "../domain/exposition-model.js";
import { isInWindow, WINDOW_MS, type Observation } from "../domain/observation.js";
import { advanceTimeline, type PullRequestTransition } from "../domain/pull-request-timeline.js";
import { applyTestRunFact, type TestRunFact } from "../domain/test-run-facts.js";
import { nextTestStatus, testKeyOf, type TestStatusFact } from "../domain/test-status.js";
import type { ActiveRunStore } from "../store/active-run-store.js";
import type { KnownQueueStore } from "../store/known-queue-store.js";
import type { ObservationStore } from "../store/observation-store.js";
import type { SequencedRecord } from "../store/sequenced-records.js";
import type { TestStatusStore } from "../store/test-status-store.js";
import type { TimelineStore } from "../store/timeline-store.js";

export interface MetricsStores {
  timelines: TimelineStore;
  runs: ActiveRunStore;
  observations: ObservationStore;
  tests: TestStatusStore;
  queues: KnownQueueStore;
}

/** What the store holds at one moment, and the generation of its observations (see ObservationStore). */
export interface StateView extends MetricsView {
  observations: readonly Observation[];
  observationsGeneration: number;
}

/** Where a lifecycle event sits in the events stream: what a reconciliation compares records with. */
export type StreamSequence = number;

/**
 * The metrics service's state, held in the store and shared by every replica: an event is applied by whichever
 * replica the durable consumer hands it to, and a scrape of any replica reads the same records, so every replica
 * reports the same totals and each event counts once (observations are keyed by the event id). No copy is kept in
 * process memory: what the store's collections hold is what a scrape reports (the embedded store's reads follow
 * the bucket, a few milliseconds behind another replica's write).
 *
 * Every write that depends on what was read is compare-and-set on the record as read: an event applied to a record
 * another replica changed meanwhile fails with a ConflictError and is redelivered against the newer record; a
 * reconciliation leaves such a record alone.
 */
export class MetricsState {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly stores: MetricsStores) {}

  /** What the store holds now, observations limited to the window ending at `now`. */
  async view(now: number): Promise<StateView> {
    const { queues, timelines, runs, observations, tests } = this.stores;
    const [q, t, r, { generation, observations: o }, s] = await Promise.all([
      queues.all(),
      timelines.values(),
      runs.values(),
      observations.since(now - WINDOW_MS),
      tests.values(),
    ]);
    return {
      queues: q,
      timelines: t,
      runs: r,
      observations: o,
      observationsGeneration: generation,
      testStatuses: s,
    };
  }

  applyTransition(event: PullRequestTransition, seq: StreamSequence, now: number): Promise<void> {
    return this.serialized(async () => {
      const key = timelineKeyOf(event);
      const seen = await this.stores.timelines.get(key);
      const step = advanceTimeline(seen?.value ?? undefined, event);
      await this.observe(step.observations, now);
      if (!step.changed) return;
      if (!(await this.stores.timelines.set(key, seen, { value: step.timeline, seq }))) throw lostRace(key);
    });
  }

  applyTestRun(fact: TestRunFact, seq: StreamSequence, now: number): Promise<void> {
    return this.serialized(async () => {
      const seen = await this.stores.runs.get(fact.runId);
      const step = applyTestRunFact(seen?.value ?? undefined, fact);
      await this.observe(step.observations, now);
      if (step.run === undefined) return;
      if (!(await this.stores.runs.set(fact.runId, seen, { value: step.run, seq }))) {
        throw lostRace(runKeyOf(fact.runId));
      }
    });
  }

  applyTestStatus(fact: TestStatusFact, seq: StreamSequence): Promise<void> {
    return this.serialized(async () => {
      const key = testKeyOf(fact);
      const seen = await this.stores.tests.get(key);
      const { record, changed } = nextTestStatus(seen?.value ?? undefined, fact);
      if (!changed) return;
      const written = record
        ? await this.stores.tests.set(key, seen, { value: record, seq })
        : seen === undefined || (await this.stores.tests.remove(key, seen));
      if (!written) throw lostRace(key);
    });
  }

  /**
   * Re-derives the gauges from the coordinator's state. `lastSequence` is read before the snapshot is asked
   * for: a record an event (of any replica) wrote after it is newer than the snapshot and stays as it is, and a
   * record changed while the plan is written is left to the next reconciliation.
   */
  async reconcile(
    fetchSnapshot: () => Promise<CoordinatorSnapshot>,
    lastSequence: () => Promise<StreamSequence>,
  ): Promise<ReconcilePlan> {
    const mark = await lastSequence();
    const snapshot = await fetchSnapshot();
    return this.serialized(async () => {
      const timelines = await this.stores.timelines.all();
      const runs = await this.stores.runs.all();
      const touched = (record: SequencedRecord<object> | undefined) => (record?.seq ?? 0) > mark;
      const runPrefix = runKeyOf("");
      const plan = planReconcile(
        {
          timelines: liveValues(timelines),
          runs: liveValues(runs),
          touchedSince: (key) =>
            key.startsWith(runPrefix)
              ? touched(runs.get(key.slice(runPrefix.length)))
              : touched(timelines.get(key)),
        },
        snapshot,
      );
      const at = <T>(value: T) => ({ value, seq: mark });
      for (const t of plan.putTimelines) {
        const key = timelineKeyOf(t);
        await this.stores.timelines.set(key, timelines.get(key), at(t));
      }
      for (const run of plan.putRuns) await this.stores.runs.set(run.runId, runs.get(run.runId), at(run));
      for (const key of plan.dropTimelines) {
        const seen = timelines.get(key);
        if (seen) await this.stores.timelines.remove(key, seen);
      }
      for (const runId of plan.dropRuns) {
        const seen = runs.get(runId);
        if (seen) await this.stores.runs.remove(runId, seen);
      }
      // A tombstone older than the snapshot has done its work: the snapshot knows the PR or run is gone.
      for (const [key, record] of timelines) {
        if (record.value === null && !touched(record)) await this.stores.timelines.remove(key, record);
      }
      for (const [runId, record] of runs) {
        if (record.value === null && !touched(record)) await this.stores.runs.remove(runId, record);
      }
      await this.stores.queues.replace(snapshot.queues);
      return plan;
    });
  }

  /** Forgets observations that left the window; another replica pruning the same ones at once is no failure. */
  prune(now: number): Promise<void> {
    return this.serialized(async () => {
      try {
        await this.stores.observations.dropBefore(now - WINDOW_MS);
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    });
  }

  private async observe(observations: readonly Observation[], now: number): Promise<void> {
    await this.stores.observations.put(observations.filter((o) => isInWindow(o, now)));
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    // A failed change must not block the ones queued after it.
    this.tail = result.catch(() => undefined);
    return result;
  }
}

function liveValues<T>(records: ReadonlyMap<string, SequencedRecord<T>>): Map<string, T> {
  const live = new Map<string, T>();
  for (const [key, record] of records) if (record.value !== null) live.set(key, record.value);
  return live;
}

function lostRace(key: string): ConflictError {
  return new ConflictError(`${key} was changed by another replica meanwhile; the event is applied again`);
}
