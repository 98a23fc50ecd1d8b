import {
  planReconcile,
  runKeyOf,
  timelineKeyOf,
  type CoordinatorSnapshot,
  type ReconcilePlan,
} from "../domain/coordinator-snapshot.js";
import type { MetricsView } from "../domain/exposition-model.js";
import { isInWindow, WINDOW_MS, type Observation } from "../domain/observation.js";
import {
  advanceTimeline,
  type PullRequestTimeline,
  type PullRequestTransition,
} from "../domain/pull-request-timeline.js";
import { queueKeyOf, type QueueIdentity } from "../domain/queue-identity.js";
import { applyTestRunFact, type ActiveTestRun, type TestRunFact } from "../domain/test-run-facts.js";
import {
  nextTestStatus,
  testKeyOf,
  type TestStatusFact,
  type TestStatusRecord,
} from "../domain/test-status.js";
import type { ActiveRunStore } from "../store/active-run-store.js";
import type { ObservationStore } from "../store/observation-store.js";
import type { TestStatusStore } from "../store/test-status-store.js";
import type { TimelineStore } from "../store/timeline-store.js";

export interface MetricsStores {
  timelines: TimelineStore;
  runs: ActiveRunStore;
  observations: ObservationStore;
  tests: TestStatusStore;
}

/**
 * The metrics service's state: in memory for scrapes, written through to the store so that a restart starts
 * where the last process stopped. One change at a time (events and reconciliations alike), and the store is
 * written before memory: a failed write leaves both as they were, and the redelivered event recomputes it.
 */
export class MetricsState {
  private readonly timelines = new Map<string, PullRequestTimeline>();
  private readonly runs = new Map<string, ActiveTestRun>();
  private readonly tests = new Map<string, TestStatusRecord>();
  private observations: Observation[] = [];
  private readonly observationIds = new Set<string>();
  private queues = new Map<string, QueueIdentity>();
  /** Key -> change number of the last event that changed it; read by reconciliations. */
  private readonly touches = new Map<string, number>();
  private changes = 0;
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(private readonly stores: MetricsStores) {}

  static async load(stores: MetricsStores, now: number): Promise<MetricsState> {
    const state = new MetricsState(stores);
    for (const t of await stores.timelines.all()) state.timelines.set(timelineKeyOf(t), t);
    for (const run of await stores.runs.all()) state.runs.set(run.runId, run);
    for (const record of await stores.tests.all()) state.tests.set(testKeyOf(record), record);
    state.remember(await stores.observations.since(now - WINDOW_MS), now);
    return state;
  }

  view(): MetricsView {
    return {
      queues: this.queues.values(),
      timelines: this.timelines.values(),
      runs: this.runs.values(),
      observations: this.observations,
      testStatuses: this.tests.values(),
    };
  }

  applyTransition(event: PullRequestTransition, now: number): Promise<void> {
    return this.serialized(async () => {
      const key = timelineKeyOf(event);
      const step = advanceTimeline(this.timelines.get(key), event);
      await this.stores.observations.put(step.observations.filter((o) => isInWindow(o, now)));
      if (step.changed) {
        if (step.timeline) await this.stores.timelines.put(step.timeline);
        else await this.stores.timelines.drop(key);
      }
      this.remember(step.observations, now);
      if (!step.changed) return;
      if (step.timeline) this.timelines.set(key, step.timeline);
      else this.timelines.delete(key);
      this.touch(key);
    });
  }

  applyTestRun(fact: TestRunFact, now: number): Promise<void> {
    return this.serialized(async () => {
      const step = applyTestRunFact(this.runs.get(fact.runId), fact);
      await this.stores.observations.put(step.observations.filter((o) => isInWindow(o, now)));
      if (step.run) await this.stores.runs.put(step.run);
      else if (step.run === null) await this.stores.runs.drop(fact.runId);
      this.remember(step.observations, now);
      if (step.run === undefined) return;
      if (step.run) this.runs.set(fact.runId, step.run);
      else this.runs.delete(fact.runId);
      this.touch(runKeyOf(fact.runId));
    });
  }

  applyTestStatus(fact: TestStatusFact): Promise<void> {
    return this.serialized(async () => {
      const key = testKeyOf(fact);
      const { record, changed } = nextTestStatus(this.tests.get(key), fact);
      if (!changed) return;
      if (record) await this.stores.tests.put(record);
      else await this.stores.tests.drop(key);
      if (record) this.tests.set(key, record);
      else this.tests.delete(key);
    });
  }

  /**
   * Re-derives the gauges from the coordinator's state. Events applied while the snapshot is fetched are
   * noted, so that what they changed is not overwritten by an answer older than them.
   */
  async reconcile(fetchSnapshot: () => Promise<CoordinatorSnapshot>): Promise<ReconcilePlan> {
    const mark = this.changes;
    const snapshot = await fetchSnapshot();
    return this.serialized(async () => {
      const plan = planReconcile(
        {
          timelines: this.timelines,
          runs: this.runs,
          touchedSince: (key) => (this.touches.get(key) ?? 0) > mark,
        },
        snapshot,
      );
      for (const t of plan.putTimelines) await this.stores.timelines.put(t);
      for (const key of plan.dropTimelines) await this.stores.timelines.drop(key);
      for (const run of plan.putRuns) await this.stores.runs.put(run);
      for (const runId of plan.dropRuns) await this.stores.runs.drop(runId);
      for (const t of plan.putTimelines) this.timelines.set(timelineKeyOf(t), t);
      for (const key of plan.dropTimelines) this.timelines.delete(key);
      for (const run of plan.putRuns) this.runs.set(run.runId, run);
      for (const runId of plan.dropRuns) this.runs.delete(runId);
      this.queues = new Map(snapshot.queues.map((q) => [queueKeyOf(q), q]));
      // Later reconciliations ask after this one did: older notes can no longer matter.
      for (const [key, change] of this.touches) if (change <= mark) this.touches.delete(key);
      return plan;
    });
  }

  /** Forgets observations that left the window, in memory and in the store. */
  prune(now: number): Promise<void> {
    return this.serialized(async () => {
      await this.stores.observations.dropBefore(now - WINDOW_MS);
      this.observations = this.observations.filter((o) => {
        const keep = isInWindow(o, now);
        if (!keep) this.observationIds.delete(o.id);
        return keep;
      });
    });
  }

  private remember(observations: readonly Observation[], now: number): void {
    for (const o of observations) {
      if (this.observationIds.has(o.id) || !isInWindow(o, now)) continue;
      this.observationIds.add(o.id);
      this.observations.push(o);
    }
  }

  private touch(key: string): void {
    this.touches.set(key, ++this.changes);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    // A failed change must not block the ones queued after it.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
