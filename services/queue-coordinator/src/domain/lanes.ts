import { InternalError } from "@mainline/kit/errors/index";
import type { Batch, BatchStatus } from "./batch.js";
import type { PullRequestEntry } from "./pull-request.js";
import type { QueueMode } from "./queue-settings.js";

/**
 * Places a PR without a batch; given the batches of its direct prerequisites and the position of
 * a batch already placed.
 */
export type PlaceInBatch = (
  n: number,
  depBatches: readonly string[],
  indexOf: (batchId: string) => number,
  sameLane: (a: string, b: string) => boolean,
) => string;

interface BatchNode {
  index: number;
  deps: string[];
}

const NO_DEPS: readonly string[] = Object.freeze([]);

/**
 * The dependency graph between batches, a DAG whose topological order is the queue order
 * (rules 6, 11, 12). Built in one pass over the queue with an index of the last PR that touched
 * each target: only the latest toucher of a target is a direct prerequisite (earlier ones are
 * reached through it), so the pass is linear in (PR, target) pairs. In single mode every PR
 * acts as "ALL". Derived views (dependents, lanes, positions) are computed on first use. An
 * off-line batch (a failure being resolved aside, see ejection.ts) depends on what is ahead of it,
 * but nothing depends on it: the line goes on without it.
 */
export class LaneGraph {
  /** Batches ordered by first member: every batch after its prerequisites. */
  readonly batchOrder: string[] = [];
  readonly byStatus = new Map<BatchStatus, string[]>();
  /**
   * Batches with members on both sides of another batch they depend on: possible only after a
   * batch that was off-line came back into line. They must be formed again (see batching.ts).
   */
  readonly straddling: string[] = [];
  // Plain objects keyed by batch id (integer-like strings): measurably faster than Maps here.
  private readonly nodes: Record<string, BatchNode> = {};
  private dependents: Map<string, string[]> | null = null;
  private readonly lanes = new Map<string, string>();
  /**
   * Union-find over the batches placed so far: two batches are in one lane when prerequisites link them. Made on
   * the first sameLane question only (most builds never ask: no PR is looking for a batch), then kept up.
   */
  private joined: Record<string, string> | null = null;

  static build(
    order: readonly number[],
    prs: Readonly<Record<string, PullRequestEntry>>,
    batchOf: (id: string) => Readonly<Batch> | undefined,
    mode: QueueMode,
    place: PlaceInBatch,
    offline?: (batchId: string) => boolean,
  ): LaneGraph {
    const graph = new LaneGraph();
    const indexOfBatch = (id: string): number => graph.indexOf(id);
    const sameLane = (a: string, b: string): boolean => graph.sameLane(a, b);
    const lastTouch = new Map<string, number>();
    let lastAll: number | null = null;
    // Scratch buffers reused for every PR; truncating arrays is slow in V8, counters are not.
    const depPrs: number[] = [];
    let depPrCount = 0;
    const depBatches: string[] = [];
    const addDepPr = (p: number): void => {
      for (let i = 0; i < depPrCount; i++) if (depPrs[i] === p) return;
      depPrs[depPrCount++] = p;
    };
    for (const n of order) {
      const entry = prs[n];
      if (entry === undefined) throw new InternalError(`queued PR ${n} has no entry`);
      depPrCount = 0;
      const targets = mode === "SINGLE" ? "ALL" : (entry.impactedTargets?.targets ?? "ALL");
      if (targets === "ALL") {
        for (const p of lastTouch.values()) addDepPr(p);
        if (lastAll !== null) addDepPr(lastAll);
      } else {
        for (const target of targets) {
          const previous = lastTouch.get(target);
          if (previous !== undefined) addDepPr(previous);
        }
        // Rule 11 outranks "an empty list depends on nothing": ALL is a prerequisite of every later PR.
        if (depPrCount === 0 && lastAll !== null) addDepPr(lastAll);
      }
      // A stacked PR holds the commits of the PR below it, whatever their targets (issue 28).
      const below = entry.facts?.stackedOn;
      if (below !== undefined && prs[below]?.batchId != null) addDepPr(below);
      let depBatchCount = 0;
      for (let i = 0; i < depPrCount; i++) {
        const id = prs[depPrs[i] as number]?.batchId;
        if (id === null || id === undefined) continue;
        let seen = false;
        for (let j = 0; j < depBatchCount && !seen; j++) seen = depBatches[j] === id;
        if (!seen) depBatches[depBatchCount++] = id;
      }
      const batchId = entry.batchId ?? place(n, depBatches.slice(0, depBatchCount), indexOfBatch, sameLane);
      let node = graph.nodes[batchId];
      if (node === undefined) {
        const batch = batchOf(batchId);
        if (batch === undefined) throw new InternalError(`queued PR ${n} has no batch`);
        node = { index: graph.batchOrder.length, deps: NO_DEPS as string[] };
        graph.nodes[batchId] = node;
        graph.batchOrder.push(batchId);
        graph.listByStatus(batch.status).push(batchId);
      }
      for (let j = 0; j < depBatchCount; j++) {
        const dep = depBatches[j] as string;
        if (dep === batchId || node.deps.includes(dep)) continue;
        if (graph.indexOf(dep) > node.index && !graph.straddling.includes(batchId))
          graph.straddling.push(batchId);
        if (node.deps === NO_DEPS) node.deps = [];
        node.deps.push(dep);
        if (graph.joined !== null) graph.join(batchId, dep);
      }
      // An off-line batch waits for what is ahead of it, but nothing behind it waits for it.
      if (offline?.(batchId) === true) continue;
      if (targets === "ALL") {
        lastTouch.clear();
        lastAll = n;
      } else {
        for (const target of targets) lastTouch.set(target, n);
      }
    }
    return graph;
  }

  private root(joined: Record<string, string>, batchId: string): string {
    let at = batchId;
    for (;;) {
      const up = joined[at];
      if (up === undefined || up === at) return at;
      // Path halving keeps every later walk short.
      const upper = joined[up];
      if (upper !== undefined) joined[at] = upper;
      at = up;
    }
  }

  private join(a: string, b: string): void {
    const joined = this.joined ?? {};
    const ra = this.root(joined, a);
    const rb = this.root(joined, b);
    if (ra !== rb) joined[ra] = rb;
  }

  private lanesSoFar(): Record<string, string> {
    if (this.joined === null) {
      this.joined = {};
      for (const id of this.batchOrder) for (const dep of this.depsOf(id)) this.join(id, dep);
    }
    return this.joined;
  }

  /**
   * Whether two batches placed so far share a lane: a chain of prerequisites links them, in either direction
   * (rule 6: PRs batch together only within a lane). A batch links to nothing but itself until it has a
   * prerequisite or a dependent.
   */
  sameLane(a: string, b: string): boolean {
    if (a === b) return true;
    const joined = this.lanesSoFar();
    return this.root(joined, a) === this.root(joined, b);
  }

  private listByStatus(status: BatchStatus): string[] {
    let list = this.byStatus.get(status);
    if (list === undefined) {
      list = [];
      this.byStatus.set(status, list);
    }
    return list;
  }

  /** Keeps the status lists right when a phase changes a batch's status within a round. */
  moveStatus(batchId: string, from: BatchStatus, to: BatchStatus): void {
    const old = this.byStatus.get(from);
    const at = old?.indexOf(batchId) ?? -1;
    if (at >= 0) old?.splice(at, 1);
    const list = this.listByStatus(to);
    const index = this.indexOf(batchId);
    let i = list.length;
    while (i > 0 && this.indexOf(list[i - 1] as string) > index) i--;
    list.splice(i, 0, batchId);
  }

  withStatus(status: BatchStatus): readonly string[] {
    return this.byStatus.get(status) ?? NO_DEPS;
  }

  indexOf(batchId: string): number {
    return this.nodes[batchId]?.index ?? -1;
  }

  depsOf(batchId: string): readonly string[] {
    return this.nodes[batchId]?.deps ?? NO_DEPS;
  }

  dependentsOf(batchId: string): readonly string[] {
    if (this.dependents === null) {
      this.dependents = new Map();
      for (const id of this.batchOrder) {
        for (const dep of this.depsOf(id)) {
          const list = this.dependents.get(dep);
          if (list === undefined) this.dependents.set(dep, [id]);
          else list.push(id);
        }
      }
    }
    return this.dependents.get(batchId) ?? NO_DEPS;
  }

  /** A lane is named after the batch at the head of the first chain of prerequisites. */
  laneOf(batchId: string): string {
    const known = this.lanes.get(batchId);
    if (known !== undefined) return known;
    const first = this.depsOf(batchId)[0];
    const lane = first === undefined ? `lane-${batchId}` : this.laneOf(first);
    this.lanes.set(batchId, lane);
    return lane;
  }

  /** Every batch `batchId` depends on, directly or not, in topological order. */
  ancestorsOf(batchId: string): string[] {
    return this.closure(batchId, (id) => this.depsOf(id));
  }

  /** Every batch that depends on `batchId`, directly or not, in topological order. */
  descendantsOf(batchId: string): string[] {
    return this.closure(batchId, (id) => this.dependentsOf(id));
  }

  private closure(start: string, edges: (id: string) => readonly string[]): string[] {
    const seen = new Set<string>();
    const stack = [...edges(start)];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      for (const e of edges(next)) if (!seen.has(e)) stack.push(e);
    }
    return [...seen].sort((a, b) => this.indexOf(a) - this.indexOf(b));
  }

  /**
   * The PRs of the given batches, batch by batch in topological order: a valid order to apply
   * them (a PR never joins a batch while depending on a PR outside it that comes later).
   */
  prsOf(batches: Readonly<Record<string, Batch>>, batchIds: readonly string[]): number[] {
    return this.sorted(batchIds).flatMap((id) => batches[id]?.prs ?? []);
  }

  /** Sorts batch ids into topological order. */
  sorted(batchIds: Iterable<string>): string[] {
    return [...batchIds].sort((a, b) => this.indexOf(a) - this.indexOf(b));
  }
}
