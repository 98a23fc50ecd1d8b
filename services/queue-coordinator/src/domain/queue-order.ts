import type { Draft } from "./draft.js";
import type { PullRequestEntry } from "./pull-request.js";
import { URGENT_PRIORITY } from "./priority.js";
import { dropRunsOf, restartBatch, restartRunsContaining } from "./restarts.js";
import { stackInsertionIndex } from "./stack.js";

/**
 * Where a PR that just became ready goes. Priority applies only before testing begins: a PR
 * goes behind everyone of equal or more urgent priority (FIFO within a level) and behind
 * everyone who has started testing, except urgent PRs, which go behind urgent PRs (and PRs
 * being merged) only.
 */
export function insertionIndex(d: Draft, priority: number): number {
  const order = d.state.order;
  let i = order.length;
  while (i > 0) {
    const ahead = d.pr(order[i - 1] as number) as Readonly<PullRequestEntry>;
    // Nothing goes between PRs that are merging together: their run did not contain it.
    const blocks =
      ahead.mergeId !== null ||
      (priority === URGENT_PRIORITY
        ? ahead.priority.value === URGENT_PRIORITY
        : ahead.startedTesting || ahead.priority.value <= priority);
    if (blocks) break;
    i--;
  }
  return i;
}

/**
 * Where PRs that were already in line go back (after a bisection cleared them): behind every PR
 * that has started testing, ahead of the PRs that have not started and are no more urgent, but
 * never ahead of one of their own priority submitted before them. A batch probed while it waited
 * had not started either: its cleared PRs overtook the unstarted PRs that were ahead of them (the
 * FIFO property found it at depth 0: a no-batch PR overtaken by a later PR its probe had cleared).
 */
export function requeueIndex(d: Draft, priority: number, submittedAt: number): number {
  const order = d.state.order;
  let i = 0;
  for (let j = 0; j < order.length; j++) if (d.pr(order[j] as number)?.startedTesting === true) i = j + 1;
  const staysAhead = (n: number): boolean => {
    const pr = d.pr(n);
    if (pr === undefined) return true;
    if (pr.priority.value !== priority) return pr.priority.value < priority;
    return pr.submittedAt < submittedAt && !pr.history.some((t) => t.to === "PENDING_FAILURE");
  };
  while (i < order.length && staysAhead(order[i] as number)) i++;
  return i;
}

/** Puts a PR at `index` of the queue order; a batch it would split is re-formed. */
export function insertAt(d: Draft, n: number, index: number): void {
  const order = d.editOrder();
  order.splice(index, 0, n);
  if (index < order.length - 1) {
    dissolveStraddledBatches(d, index);
    reformUnstartedBehind(d, index);
  }
}

/**
 * Batches behind an inserted PR that have not started testing are formed again in the new
 * order, so that the PR batches with them: priority reorders what has not started, it does not
 * cut the line into a batch of one ahead of batches already formed.
 */
function reformUnstartedBehind(d: Draft, index: number): void {
  const order = d.state.order;
  const seen = new Set<string>();
  for (let i = index + 1; i < order.length; i++) {
    const id = d.pr(order[i] as number)?.batchId;
    if (id === null || id === undefined || seen.has(id)) continue;
    seen.add(id);
    const batch = d.batch(id);
    const unstarted = batch?.status === "FORMING" || (batch?.status === "QUEUED" && batch.runId === null);
    if (batch === undefined || !unstarted || batch.closed) continue;
    // A probed batch keeps its shape (and its probe): re-forming it would throw away a run
    // whose answer is on its way, and a failure it finds spares every run stacked on it. The PR
    // inserted ahead may then test in a smaller batch; in the simulator this costs less.
    if (batch.probe != null) continue;
    dropRunsOf(d, id, "BATCH_REFORMED");
    for (const n of batch.prs) d.editPr(n).batchId = null;
    d.deleteBatch(id);
  }
}

/** Puts a ready PR into the queue order as PENDING. Its batch is chosen by formBatches. */
export function insertIntoOrder(d: Draft, n: number): void {
  const entry = d.pr(n) as Readonly<PullRequestEntry>;
  const index = stackInsertionIndex(d, n, insertionIndex(d, entry.priority.value));
  const order = d.editOrder();
  if (index === order.length) {
    order.push(n);
    return;
  }
  order.splice(index, 0, n);
  dissolveStraddledBatches(d, index);
  reformUnstartedBehind(d, index);
  if (entry.priority.value === URGENT_PRIORITY) d.urgentInsertions.push(n);
}

/**
 * A batch with members on both sides of an inserted PR could end up both ahead of and behind
 * it; such a batch is dissolved and its PRs re-batched in their places.
 */
function dissolveStraddledBatches(d: Draft, index: number): void {
  const first = new Map<string, number>();
  const straddled = new Set<string>();
  d.state.order.forEach((n, i) => {
    const id = d.pr(n)?.batchId;
    if (id === null || id === undefined) return;
    if (!first.has(id)) first.set(id, i);
    if (i > index && (first.get(id) ?? i) < index) straddled.add(id);
  });
  dissolveBatches(d, [...straddled]);
}

/**
 * Dissolves batches whose PRs must be batched again in their places: each restarts, and so does
 * every main run built on it. A bisection's runs are left alone: the only line PRs one contains are
 * the good groups it sent back into the line, whose new cut into batches changes nothing the
 * search tested (restarting it would forget its failure and put it back in line ahead of every
 * run in flight, making them all stale).
 */
export function dissolveBatches(d: Draft, batchIds: readonly string[]): void {
  for (const id of batchIds) {
    const batch = d.batch(id);
    if (batch === undefined || batch.status === "MERGING") continue;
    restartBatch(d, id, "BATCH_REFORMED");
    dropRunsOf(d, id, "BATCH_REFORMED");
    restartRunsContaining(d, new Set(batch.prs), "BATCH_REFORMED", { exceptBatch: id, mainOnly: true });
    for (const n of batch.prs) d.editPr(n).batchId = null;
    d.deleteBatch(id);
  }
}

/**
 * The batches a failure ahead restarted, batched again as one line when that saves runs: each was cut where a test
 * slot happened to free (often one or two PRs), and with a failure ahead gone they restart together anyway, so
 * their PRs are formed into batches of the target size in their order, one run for what took two or three. Only
 * while nothing else waits to be tested: with a line behind them, every slot fills anyway and the re-cut would batch
 * them with that line, into bigger batches that fail more often (heavy-1: p50 +5%, merged per hour -3%; see
 * docs/planner-history.md, twenty-first pass). No-batch, urgent and probed batches keep their shape.
 */
export function batchRestartedTogether(d: Draft, restarted: readonly string[]): void {
  const size = d.state.settings.batch ? d.state.settings.batchingMinSize : 1;
  const small = restarted.filter((id) => {
    const batch = d.batch(id);
    if (batch?.status !== "QUEUED" || batch.runId !== null || batch.probe != null) return false;
    if (batch.prs.length >= size) return false;
    return batch.prs.every((n) => {
      const entry = d.pr(n);
      return entry !== undefined && !batchesAlone(entry);
    });
  });
  let prs = 0;
  for (const id of small) prs += d.batch(id)?.prs.length ?? 0;
  if (small.length < 2 || Math.ceil(prs / size) >= small.length) return;
  if (untestedInLine(d) >= size) return;
  dissolveBatches(d, small);
}

/** No-batch and urgent PRs get a batch of their own and never delay or restart anyone. */
export function batchesAlone(entry: Readonly<PullRequestEntry>): boolean {
  return entry.noBatch || entry.priority.value === URGENT_PRIORITY;
}

/** PRs in line that have not started testing in this stay. */
export function untestedInLine(d: Draft): number {
  let waiting = 0;
  for (const n of d.state.order) if (d.pr(n)?.startedTesting !== true) waiting++;
  return waiting;
}

/**
 * Takes a PR out of the queue order and out of its batch. The rest of its batch restarts,
 * and so does every run built on top of it. The caller decides where the PR goes next.
 */
export function takeOutOfQueue(d: Draft, n: number, exceptBatch: string | null = null): void {
  const entry = d.pr(n);
  if (entry === undefined) return;
  if (entry.state !== "NOT_READY") d.removeFromOrder(new Set([n]));
  const batchId = entry.batchId;
  if (batchId !== null) {
    const batch = d.batch(batchId);
    if (batch !== undefined) {
      if (batch.prs.length === 1 && batchId !== exceptBatch) {
        dropRunsOf(d, batchId, "BATCH_MEMBER_REMOVED");
        d.deleteBatch(batchId);
      } else {
        d.editBatch(batchId).prs = batch.prs.filter((p) => p !== n);
        if (batchId !== exceptBatch) restartBatch(d, batchId, "BATCH_MEMBER_REMOVED");
      }
    }
    d.editPr(n).batchId = null;
  }
  const mine = d.editPr(n);
  mine.startedTesting = false;
  mine.enqueuedAt = null;
  delete mine.cleared;
  restartRunsContaining(d, new Set([n]), "ITEM_AHEAD_REMOVED", { exceptBatch });
}
