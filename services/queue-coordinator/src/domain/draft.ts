import { InternalError } from "@mainline/kit/errors/index";
import type { Batch } from "./batch.js";
import type { Decision, Notice } from "./decisions.js";
import type { LaneGraph } from "./lanes.js";
import type { MergeInFlight, PlannerState } from "./planner-state.js";
import type { PlannerOptions } from "./planner-options.js";
import type { PullRequestEntry } from "./pull-request.js";
import type { TestRun } from "./test-run.js";

type Counter = keyof PlannerState["counters"];

/**
 * The working copy of one planning step. Copy-on-write: records and entries of the input state
 * are copied the first time they are changed, so the caller's state is never modified and
 * unchanged entries are shared with it (a step over 10,000 PRs copies only what it touches).
 */
export class Draft {
  readonly state: PlannerState;
  readonly decisions: Decision[] = [];
  readonly notices: Notice[] = [];
  /** Urgent PRs inserted ahead of others this step: their dependents restart once lanes are known. */
  urgentInsertions: number[] = [];
  /** The lanes of the latest round. */
  graph: LaneGraph | null = null;
  /** Bumped whenever the queue order or a batch's existence changes: the lanes must be rebuilt. */
  shape = 0;
  private readonly owned = new Set<object>();

  constructor(
    base: PlannerState,
    now: number,
    readonly options: PlannerOptions,
  ) {
    this.state = { ...base, counters: { ...base.counters }, now: Math.max(base.now, now) };
  }

  get now(): number {
    return this.state.now;
  }

  /**
   * Batch ids are bare integers: records keyed by integer-like strings copy an order of
   * magnitude faster than string-keyed ones, and the batch record is the largest after PRs.
   */
  nextId(kind: Counter): string {
    this.state.counters[kind] += 1;
    const n = this.state.counters[kind];
    return kind === "batch" ? String(n) : `${kind}-${n}`;
  }

  private ownRecord<K extends "prs" | "batches" | "runs" | "merges">(key: K): PlannerState[K] {
    const record = this.state[key];
    if (this.owned.has(record)) return record;
    const copy = { ...record };
    this.state[key] = copy;
    this.owned.add(copy);
    return copy;
  }

  private ownEntry<T extends object>(record: Record<string, T>, key: string, copy: (t: T) => T): T {
    const entry = record[key];
    if (entry === undefined) throw new InternalError(`no entry ${key}`);
    if (this.owned.has(entry)) return entry;
    const mine = copy(entry);
    this.owned.add(mine);
    return mine;
  }

  // Pull requests
  pr(n: number): Readonly<PullRequestEntry> | undefined {
    return this.state.prs[n];
  }
  editPr(n: number): PullRequestEntry {
    const prs = this.ownRecord("prs");
    const mine = this.ownEntry(prs, String(n), (e) => ({ ...e, history: [...e.history] }));
    prs[n] = mine;
    return mine;
  }
  putPr(entry: PullRequestEntry): void {
    this.ownRecord("prs")[entry.number] = entry;
    this.owned.add(entry);
  }
  deletePr(n: number): void {
    delete this.ownRecord("prs")[n];
  }

  // Batches
  batch(id: string): Readonly<Batch> | undefined {
    return this.state.batches[id];
  }
  editBatch(id: string): Batch {
    const batches = this.ownRecord("batches");
    const mine = this.ownEntry(batches, id, (b) => ({ ...b, prs: [...b.prs] }));
    batches[id] = mine;
    return mine;
  }
  putBatch(batch: Batch): void {
    this.shape++;
    this.ownRecord("batches")[batch.id] = batch;
    this.owned.add(batch);
  }
  /** Changes a batch's status and keeps the round's status lists in step. */
  setBatchStatus(id: string, status: Batch["status"]): Batch {
    const mine = this.editBatch(id);
    const from = mine.status;
    mine.status = status;
    if (from !== status) this.graph?.moveStatus(id, from, status);
    return mine;
  }
  deleteBatch(id: string): void {
    this.shape++;
    delete this.ownRecord("batches")[id];
  }

  // Test runs
  run(id: string): Readonly<TestRun> | undefined {
    return this.state.runs[id];
  }
  editRun(id: string): TestRun {
    const runs = this.ownRecord("runs");
    const mine = this.ownEntry(runs, id, (r) => ({ ...r }));
    runs[id] = mine;
    return mine;
  }
  putRun(run: TestRun): void {
    this.ownRecord("runs")[run.id] = run;
    this.owned.add(run);
  }
  deleteRun(id: string): void {
    delete this.ownRecord("runs")[id];
  }
  allRuns(): readonly TestRun[] {
    return Object.values(this.state.runs);
  }

  // Merges
  merge(id: string): Readonly<MergeInFlight> | undefined {
    return this.state.merges[id];
  }
  putMerge(merge: MergeInFlight): void {
    this.ownRecord("merges")[merge.id] = merge;
  }
  deleteMerge(id: string): void {
    delete this.ownRecord("merges")[id];
  }

  // Queue order
  editOrder(): number[] {
    this.shape++;
    if (!this.owned.has(this.state.order)) {
      this.state.order = [...this.state.order];
      this.owned.add(this.state.order);
    }
    return this.state.order;
  }
  removeFromOrder(prs: ReadonlySet<number>): void {
    this.shape++;
    this.state.order = this.state.order.filter((p) => !prs.has(p));
    this.owned.add(this.state.order);
  }

  decide(decision: Decision): void {
    this.decisions.push(decision);
  }
  notify(notice: Notice): void {
    this.notices.push(notice);
  }
}
