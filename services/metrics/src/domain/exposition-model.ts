import { FAMILIES, type FamilyDefinition, type FamilyId } from "./catalogue.js";
import { isInWindow, type Observation, type ObservationKind, type QueueType } from "./observation.js";
import type { PullRequestTimeline } from "./pull-request-timeline.js";
import { inScope, queueKeyOf, repoLabelOf, type MetricsScope, type QueueIdentity } from "./queue-identity.js";
import type { ActiveTestRun } from "./test-run-facts.js";
import type { TestStatusRecord } from "./test-status.js";

/** What the metrics service knows at one moment; every series is computed from it. */
export interface MetricsView {
  /** Queues the coordinator reported, so an idle queue still shows its zeros. */
  queues: Iterable<QueueIdentity>;
  timelines: Iterable<PullRequestTimeline>;
  runs: Iterable<ActiveTestRun>;
  observations: Iterable<Observation>;
  testStatuses: Iterable<TestStatusRecord>;
}

export type Labels = Readonly<Record<string, string>>;

export interface GaugeSeries {
  labels: Labels;
  value: number;
}

export interface HistogramSeries {
  labels: Labels;
  /** Every observed value; the renderer buckets them. */
  values: number[];
}

export type MetricFamily =
  | { definition: FamilyDefinition; type: "gauge"; series: GaugeSeries[] }
  | { definition: FamilyDefinition; type: "histogram"; series: HistogramSeries[] };

/** Which family each observation kind feeds. */
const WINDOWED: Record<ObservationKind, FamilyId> = {
  pr_conclusion: "conclusions",
  pr_restart: "restarts",
  pr_wait: "waitDuration",
  pr_test: "testDuration",
  pr_time_in_queue: "timeInQueue",
  batch_size: "batchSize",
  run_started: "runsStarted",
  run_finished: "runsFinished",
  run_duration: "runDuration",
  bisection_reuse: "reusedResults",
};

/**
 * The families for one organisation (and optionally one repository of it) at `now`: gauges from the live
 * state, windowed families from the observations of the last hour. Nothing of another organisation is read.
 */
export function buildExposition(view: MetricsView, scope: MetricsScope, now: number): MetricFamily[] {
  const queues = new Map<string, QueueIdentity>();
  const see = (q: QueueIdentity): boolean => {
    if (!inScope(q, scope)) return false;
    const key = queueKeyOf(q);
    if (!queues.has(key)) queues.set(key, q);
    return true;
  };
  for (const q of view.queues) see(q);

  const families = new Map<FamilyId, SeriesSet>();
  for (const id of Object.keys(FAMILIES) as FamilyId[]) families.set(id, new SeriesSet(FAMILIES[id]));
  const family = (id: FamilyId) => families.get(id) as SeriesSet;

  for (const t of view.timelines) {
    if (!see(t.queue)) continue;
    family(t.state === "NOT_READY" ? "awaitingMergeability" : "depth").add(queueLabels(t.queue, "main"), 1);
  }
  for (const run of view.runs) {
    if (see(run.queue)) family("testingSlots").add(queueLabels(run.queue, run.kind), 1);
  }
  const started = new Map<
    string,
    { queue: QueueIdentity; main: number; bisection: number; merged: number }
  >();
  // Observations of one queue often share its object (the store's copy does): its scope and each of its series
  // are looked up once per object, not once per observation. Other objects only miss this memo.
  const inScopeByQueue = new Map<QueueIdentity, boolean>();
  const recordersByQueue = new Map<QueueIdentity, Map<string, (value: number) => void>>();
  const recorderOf = (o: Observation): ((value: number) => void) => {
    let recorders = recordersByQueue.get(o.queue);
    if (recorders === undefined) {
      recorders = new Map<string, (value: number) => void>();
      recordersByQueue.set(o.queue, recorders);
    }
    const key = `${o.kind}\u0000${o.queueType}\u0000${o.label ?? ""}`;
    let record = recorders.get(key);
    if (record === undefined) {
      const target = family(WINDOWED[o.kind]);
      const labels = queueLabels(o.queue, o.queueType, target.definition.extraLabel?.name, o.label);
      record = target.recorder(labels);
      recorders.set(key, record);
    }
    return record;
  };
  for (const o of view.observations) {
    if (!isInWindow(o, now)) continue;
    let scoped = inScopeByQueue.get(o.queue);
    if (scoped === undefined) inScopeByQueue.set(o.queue, (scoped = see(o.queue)));
    if (!scoped) continue;
    recorderOf(o)(o.value);
    if (o.kind === "run_started" || (o.kind === "pr_conclusion" && o.label === "merged")) {
      const key = queueKeyOf(o.queue);
      const entry = started.get(key) ?? { queue: o.queue, main: 0, bisection: 0, merged: 0 };
      if (o.kind === "run_started") entry[o.queueType] += o.value;
      else entry.merged += o.value;
      started.set(key, entry);
    }
  }
  for (const { queue, main, bisection, merged } of started.values()) {
    // A ratio with nothing merged has no value; the series is left out rather than reported as 0 or NaN.
    if (merged === 0) continue;
    family("runsPerMergedPr").add(queueLabels(queue, "main"), main / merged);
    family("runsPerMergedPr").add(queueLabels(queue, "bisection"), bisection / merged);
  }

  const repos = new Map<string, string>();
  for (const q of queues.values()) repos.set(repoLabelOf(q), repoLabelOf(q));
  const tests = family("tests");
  for (const record of view.testStatuses) {
    if (!inScope({ org: record.org, ...record.repo }, scope)) continue;
    repos.set(repoLabelOf(record.repo), repoLabelOf(record.repo));
    tests.add({ repo: repoLabelOf(record.repo), status: record.status }, 1);
  }
  for (const repo of repos.values()) {
    for (const status of FAMILIES.tests.extraLabel.values) tests.zero({ repo, status });
  }

  for (const q of queues.values()) {
    for (const set of families.values()) {
      const { queueTypes, extraLabel } = set.definition;
      for (const queueType of queueTypes) {
        for (const value of extraLabel?.values ?? [null]) {
          set.zero(queueLabels(q, queueType, extraLabel?.name, value));
        }
      }
    }
  }
  return [...families.values()].map((set) => set.toFamily());
}

function queueLabels(q: QueueIdentity, queueType: QueueType, extra?: string, value?: string | null): Labels {
  return {
    repo: repoLabelOf(q),
    branch: q.branch,
    queue_type: queueType,
    ...(extra !== undefined && value !== null && value !== undefined ? { [extra]: value } : {}),
  };
}

/**
 * The series of one family, keyed by their labels: two queues that share every label (the same owner/name on
 * two hosts) add up into one series, as Prometheus would have to anyway.
 */
class SeriesSet {
  private readonly gauges = new Map<string, GaugeSeries>();
  private readonly histograms = new Map<string, HistogramSeries>();

  constructor(readonly definition: FamilyDefinition) {}

  zero(labels: Labels): void {
    if (this.definition.type === "histogram") this.histogramOf(labels);
    else this.gaugeOf(labels);
  }

  add(labels: Labels, value: number): void {
    this.gaugeOf(labels).value += value;
  }

  /** Adds (gauge) or observes (histogram) into the series of `labels`, found once. */
  recorder(labels: Labels): (value: number) => void {
    if (this.definition.type === "histogram") {
      const { values } = this.histogramOf(labels);
      return (value) => values.push(value);
    }
    const series = this.gaugeOf(labels);
    return (value) => (series.value += value);
  }

  toFamily(): MetricFamily {
    const byLabels = <S extends { labels: Labels }>(series: Iterable<S>) =>
      [...series].sort((a, b) => compareLabels(a.labels, b.labels));
    return this.definition.type === "histogram"
      ? { definition: this.definition, type: "histogram", series: byLabels(this.histograms.values()) }
      : { definition: this.definition, type: "gauge", series: byLabels(this.gauges.values()) };
  }

  private gaugeOf(labels: Labels): GaugeSeries {
    const key = JSON.stringify(labels);
    let series = this.gauges.get(key);
    if (series === undefined) this.gauges.set(key, (series = { labels, value: 0 }));
    return series;
  }

  private histogramOf(labels: Labels): HistogramSeries {
    const key = JSON.stringify(labels);
    let series = this.histograms.get(key);
    if (series === undefined) this.histograms.set(key, (series = { labels, values: [] }));
    return series;
  }
}

function compareLabels(a: Labels, b: Labels): number {
  const left = Object.values(a).join("\u0000");
  const right = Object.values(b).join("\u0000");
  return left < right ? -1 : left > right ? 1 : 0;
}
