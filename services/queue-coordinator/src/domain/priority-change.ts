import { FailedPreconditionError } from "@mainline/kit/errors/index";
import type { Draft } from "./draft.js";
import { URGENT_PRIORITY, type Priority } from "./priority.js";
import type { PullRequestEntry } from "./pull-request.js";
import { insertAt, takeOutOfQueue } from "./queue-order.js";
import { stackInsertionIndex } from "./stack.js";

/**
 * Changes the priority of a PR in the queue, as if it had been submitted with it at the time it joined the line:
 * - NOT_READY: only the value changes; the PR takes its place by it when it becomes ready.
 * - waiting, never tested in its place: it moves to where the new priority puts it (behind more urgent PRs and
 *   behind PRs of its new level that joined the line before it, so FIFO within a level holds), and batches that
 *   have not started are formed again around it. Urgent overtakes running batches, as an urgent submit does.
 * - already tested in its place (TESTING, TESTS_PASSED, PENDING_FAILURE, or restarted after testing): it keeps
 *   its place and its run. Moving it would throw away CI work that is under way for it and for everything built
 *   on it; the new priority counts when it goes back in line (after a bisection clears it).
 * - being merged: refused, nothing can change any more.
 */
export function changePriority(
  d: Draft,
  entry: Readonly<PullRequestEntry>,
  parsed: Priority,
  by: string | null,
): void {
  if (entry.mergeId !== null) {
    throw new FailedPreconditionError(
      `pull request ${entry.number} is being merged; its priority can no longer change`,
    );
  }
  const n = entry.number;
  if (parsed.value === entry.priority.value) {
    // Asking for the level it already has changes nothing, except that it is no longer the default.
    if (entry.priority.usedDefault) d.editPr(n).priority = { ...parsed, usedDefault: false };
    return;
  }
  const from = entry.priority.value;
  const mine = d.editPr(n);
  mine.priority = { ...parsed, usedDefault: false };
  mine.priorityChanges = [...(entry.priorityChanges ?? []), { at: d.now, from, to: parsed.value, by }];
  d.notify({ type: "PR_PRIORITY_CHANGED", pr: n, entryId: entry.id, from, to: parsed.value, by, at: d.now });
  if (entry.state === "NOT_READY" || entry.startedTesting) return;
  const joinedAt = entry.enqueuedAt ?? entry.submittedAt;
  takeOutOfQueue(d, n);
  d.editPr(n).enqueuedAt = joinedAt;
  insertAt(d, n, stackInsertionIndex(d, n, placeFor(d, parsed.value, joinedAt)));
  if (parsed.value === URGENT_PRIORITY) d.urgentInsertions.push(n);
}

/**
 * Where a waiting PR of `priority` that joined the line at `joinedAt` belongs: behind PRs being merged, behind
 * PRs that have started testing (urgent ones excepted, they overtake), behind more urgent PRs, and behind PRs of
 * the same level that joined no later.
 */
export function placeFor(d: Draft, priority: number, joinedAt: number): number {
  const order = d.state.order;
  let i = order.length;
  while (i > 0) {
    const ahead = d.pr(order[i - 1] as number) as Readonly<PullRequestEntry>;
    const aheadValue = ahead.priority.value;
    const blocks =
      ahead.mergeId !== null ||
      (ahead.startedTesting && (priority !== URGENT_PRIORITY || aheadValue === URGENT_PRIORITY)) ||
      aheadValue < priority ||
      (aheadValue === priority && (ahead.enqueuedAt ?? ahead.submittedAt) <= joinedAt);
    if (blocks) break;
    i--;
  }
  return i;
}
