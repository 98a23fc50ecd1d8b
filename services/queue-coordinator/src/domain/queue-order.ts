import type { Draft } from "./draft.js";
import type { PullRequestEntry } from "./pull-request.js";
import { URGENT_PRIORITY } from "./priority.js";
import { dropRunsOf, restartBatch, restartRunsContaining } from "./restarts.js";

/**
 * Where a PR that just became ready goes. Priority applies only before testing begins: a PR
 * goes behind everyone of equal or more urgent priority (FIFO within a level) and behind
 * everyone who has started testing, except urgent PRs, which go behind urgent PRs only.
 */
export function insertionIndex(d: Draft, priority: number): number {
  const order = d.state.order;
  let i = order.length;
  while (i > 0) {
    const ahead = d.pr(order[i - 1] as number) as Readonly<PullRequestEntry>;
    const blocks =
      priority === URGENT_PRIORITY
        ? ahead.priority.value === URGENT_PRIORITY
        : ahead.startedTesting || ahead.priority.value <= priority;
    if (blocks) break;
    i--;
  }
  return i;
}

/**
 * Where PRs that were already in line go back (after a bisection cleared them): behind every PR
 * that has started testing, ahead of the PRs that have not started and are no more urgent.
 */
export function requeueIndex(d: Draft, priority: number): number {
  const order = d.state.order;
  let i = 0;
  for (let j = 0; j < order.length; j++) if (d.pr(order[j] as number)?.startedTesting === true) i = j + 1;
  while (i < order.length && (d.pr(order[i] as number)?.priority.value ?? Infinity) < priority) i++;
  return i;
}

/** Puts a PR at `index` of the queue order; a batch it would split is re-formed. */
export function insertAt(d: Draft, n: number, index: number): void {
  const order = d.editOrder();
  order.splice(index, 0, n);
  if (index < order.length - 1) dissolveStraddledBatches(d, index);
}

/** Puts a ready PR into the queue order as PENDING. Its batch is chosen by formBatches. */
export function insertIntoOrder(d: Draft, n: number): void {
  const entry = d.pr(n) as Readonly<PullRequestEntry>;
  const index = insertionIndex(d, entry.priority.value);
  const order = d.editOrder();
  if (index === order.length) {
    order.push(n);
    return;
  }
  order.splice(index, 0, n);
  dissolveStraddledBatches(d, index);
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
  for (const id of straddled) {
    const batch = d.batch(id);
    if (batch === undefined || batch.status === "MERGING") continue;
    restartBatch(d, id, "BATCH_REFORMED");
    restartRunsContaining(d, new Set(batch.prs), "BATCH_REFORMED", id);
    for (const n of batch.prs) d.editPr(n).batchId = null;
    d.deleteBatch(id);
  }
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
  restartRunsContaining(d, new Set([n]), "ITEM_AHEAD_REMOVED", exceptBatch);
}
