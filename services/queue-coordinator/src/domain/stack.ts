import { FailedPreconditionError } from "@mainline/kit/errors/index";
import type { Draft } from "./draft.js";
import type { StackedPullRequest } from "./events.js";
import { readinessOf, type PullRequestEntry, type PullRequestFacts, type Readiness } from "./pull-request.js";
import type { QueueSettings } from "./queue-settings.js";

/**
 * Stacked pull requests (issue 28): a PR whose base branch is the head branch of another open PR of the same
 * repository sits on it. The shell resolves that PR (`facts.stackedOn`) from the repository's facts; the
 * planner keeps a stack together (one batch, in order), tests the PRs above only on top of those below, and
 * ends the PRs above when one below fails or is cancelled.
 */

/** Larger stacks are refused: a chain this long is more likely a loop of branches than a review stack. */
export const MAX_STACK_SIZE = 32;

/** An open PR of the repository as the shell knows it, for walking down a stack. */
export interface StackCandidate {
  number: number;
  facts: PullRequestFacts;
}

/**
 * The PRs a PR sits on, nearest first, walking base branch to head branch until the target (or a branch no
 * open PR heads). Refuses a loop of branches and a stack larger than MAX_STACK_SIZE with a clear error.
 * `byHead` answers the open PRs whose head branch is the given branch (several: the lowest number wins).
 */
export function stackBelow(
  pr: number,
  facts: PullRequestFacts,
  target: string,
  byHead: (branch: string) => readonly StackCandidate[],
): StackCandidate[] {
  const below: StackCandidate[] = [];
  for (let base = facts.baseBranch; base !== target;) {
    const next = nextBelow(pr, below, byHead(base));
    if (next === undefined) break;
    below.push(next);
    base = next.facts.baseBranch;
  }
  return below;
}

/**
 * One step of stackBelow, for a shell whose lookups are asynchronous: the PR under the last one found among
 * `candidates` (the PRs heading its base branch), or undefined at the bottom of the stack.
 */
export function nextBelow(
  pr: number,
  below: readonly StackCandidate[],
  candidates: readonly StackCandidate[],
): StackCandidate | undefined {
  const next = candidates.filter((c) => c.facts.open).sort((a, b) => a.number - b.number)[0];
  if (next === undefined) return undefined;
  if (next.number === pr || below.some((c) => c.number === next.number)) {
    const loop = [pr, ...below.map((c) => c.number), next.number].map((n) => `#${n}`).join(" -> ");
    throw new FailedPreconditionError(
      `pull request ${pr} is stacked on a loop of branches (${loop}): each base branch is the head branch of the next; change one base branch to break the loop`,
    );
  }
  if (below.length + 1 >= MAX_STACK_SIZE) {
    throw new FailedPreconditionError(
      `pull request ${pr} is in a stack of more than ${MAX_STACK_SIZE} pull requests; the largest stack Mainline queues has ${MAX_STACK_SIZE}`,
    );
  }
  return next;
}

/** The PR a queue entry sits on, if any. */
export function stackedOn(entry: Readonly<PullRequestEntry> | undefined): number | undefined {
  return entry?.facts?.stackedOn;
}

/** The PRs below `n` that the planner holds, bottom first (bounded, a loop stops the walk). */
export function queuedBelow(prs: Readonly<Record<string, PullRequestEntry>>, n: number): number[] {
  const below: number[] = [];
  let next = stackedOn(prs[n]);
  while (next !== undefined && below.length < MAX_STACK_SIZE && !below.includes(next) && next !== n) {
    below.unshift(next);
    next = stackedOn(prs[next]);
  }
  return below;
}

/** A PR's stack as the queue shows it: the PRs under it (bottom first) and those on it (nearest first). */
export interface StackView {
  below: number[];
  above: number[];
}

/**
 * The stack of each PR of a queue, for getQueue and getSubmittedPullRequest: one index of who sits on whom, built
 * once, so that a queue of thousands of PRs is not scanned once per PR. Undefined for a PR in no stack.
 */
export function stackViews(
  prs: Readonly<Record<string, PullRequestEntry>>,
): (entry: Readonly<PullRequestEntry>) => StackView | undefined {
  const on = new Map<number, number[]>();
  for (const e of Object.values(prs)) {
    const below = stackedOn(e);
    if (below !== undefined) on.set(below, [...(on.get(below) ?? []), e.number]);
  }
  return (entry) => {
    const first = stackedOn(entry);
    const below = first === undefined ? [] : [...queuedBelow(prs, first), first];
    const above: number[] = [];
    for (let level = [entry.number]; level.length > 0 && above.length < MAX_STACK_SIZE;) {
      const next = level
        .flatMap((n) => on.get(n) ?? [])
        .filter((n) => n !== entry.number && !above.includes(n));
      next.sort((a, b) => a - b);
      above.push(...next);
      level = next;
    }
    return below.length === 0 && above.length === 0 ? undefined : { below, above };
  };
}

/** The PRs of `n`'s stack that the planner holds, bottom first (`n` alone when it is in no stack). */
export function queuedStackOf(prs: Readonly<Record<string, PullRequestEntry>>, n: number): number[] {
  const entry = prs[n];
  const view = entry === undefined ? undefined : stackViews(prs)(entry);
  if (view === undefined) return [n];
  return [...view.below.filter((b) => prs[b] !== undefined), n, ...view.above];
}

/** The PRs sitting directly on `n`, lowest number first. */
export function directlyAbove(prs: Readonly<Record<string, PullRequestEntry>>, n: number): number[] {
  return Object.values(prs)
    .filter((e) => stackedOn(e) === n)
    .map((e) => e.number)
    .sort((a, b) => a - b);
}

/**
 * Readiness within a queue: a stacked PR's base is the head branch of the PR below, so it is ready once that
 * PR is in the queue (its own base then checked as usual), and waits for it otherwise.
 */
export function queueReadiness(
  prs: Readonly<Record<string, PullRequestEntry>>,
  entry: Readonly<PullRequestEntry>,
  branch: string,
  requiresTargets: boolean,
): Readiness {
  const below = stackedOn(entry);
  if (below === undefined || entry.facts === null || entry.facts.baseBranch === branch)
    return readinessOf(entry, branch, requiresTargets);
  const state = prs[below]?.state;
  // Gone while this one is in line: it landed with or ahead of it (a failure or cancellation ends those above).
  if (state === undefined && entry.state !== "NOT_READY")
    return readinessOf(entry, entry.facts.baseBranch, requiresTargets);
  if (state === undefined || state === "NOT_READY") return { ready: false, reason: "AWAITING_STACK_BELOW" };
  return readinessOf(entry, entry.facts.baseBranch, requiresTargets);
}

/** What a PR waiting for its stack says it waits for. */
export function awaitingStackDetail(entry: Readonly<PullRequestEntry>): string | undefined {
  const below = stackedOn(entry);
  return below === undefined
    ? undefined
    : `waits for #${below}, the pull request it is stacked on, to be queued`;
}

/**
 * Where a stacked PR goes in line: never ahead of the PR below (whatever its priority), and right behind it
 * and the PRs already stacked on it while their batch has not started, so that the stack stays one block.
 */
export function stackInsertionIndex(d: Draft, n: number, usual: number): number {
  const below = stackedOn(d.pr(n));
  if (below === undefined) return usual;
  const order = d.state.order;
  const at = order.indexOf(below);
  if (at < 0) return usual;
  const batchId = d.pr(below)?.batchId ?? null;
  const batch = batchId === null ? undefined : d.batch(batchId);
  if (batch !== undefined && batch.runId !== null) return Math.max(usual, at + 1);
  let i = at + 1;
  while (i < order.length && queuedBelow(d.state.prs, order[i] as number).includes(below)) i++;
  return i;
}

/**
 * The batch a stacked PR joins whatever its size or closedness: its below's, while that has not started and the
 * PR would follow a member of its own stack (the block stays contiguous). Undefined: placed as usual.
 */
export function stackBatchToJoin(d: Draft, n: number): string | undefined {
  const below = stackedOn(d.pr(n));
  if (below === undefined) return undefined;
  const batchId = d.pr(below)?.batchId ?? null;
  const batch = batchId === null ? undefined : d.batch(batchId);
  if (batch === undefined || batch.runId !== null || batch.bisection !== null) return undefined;
  if (batch.status !== "FORMING" && batch.status !== "QUEUED") return undefined;
  const last = batch.prs[batch.prs.length - 1];
  if (last === undefined || !(last === below || queuedBelow(d.state.prs, n).includes(last))) return undefined;
  return batch.id;
}

/** Why the PRs above a failed or cancelled PR end with it. */
export function endedBelowDetail(below: number, to: "FAILED" | "CANCELLED"): string {
  return to === "FAILED"
    ? `depends on #${below}, stacked below it, which failed`
    : `#${below}, stacked below it, was cancelled`;
}

/** Forgets ended PRs in a bisection's search, so that nothing is tested without the PR it sits on. */
export function pruneFromBisection(d: Draft, batchId: string | null, gone: number): void {
  const bisection = batchId === null ? null : (d.batch(batchId)?.bisection ?? null);
  if (batchId === null || bisection === null) return;
  const segments = bisection.segments.map((s) => s.filter((p) => p !== gone)).filter((s) => s.length > 0);
  d.editBatch(batchId).bisection = { ...bisection, segments };
}

/** The queue's stack settings: 0 refuses stacked PRs, otherwise a stack may hold at most that many PRs. */
export function refuseStack(
  settings: Readonly<QueueSettings>,
  pr: number,
  below: readonly StackedPullRequest[],
): void {
  if (below.length === 0) return;
  const chain = below.map((b) => `#${b.pr}`).join(", ");
  if (settings.maxStackSize === 0) {
    throw new FailedPreconditionError(
      `pull request ${pr} is stacked on ${chain} and this queue takes no stacked pull requests (maxStackSize is 0); merge the pull requests below first or change its base branch`,
    );
  }
  if (below.length + 1 > settings.maxStackSize) {
    throw new FailedPreconditionError(
      `pull request ${pr} is stacked on ${chain}: ${below.length + 1} pull requests, more than this queue's maxStackSize of ${settings.maxStackSize}`,
    );
  }
}

/**
 * The code host moved a stacked PR's base to the target once the PR below it landed (the GitHub App does so, see
 * the README for plain git): the PR keeps its place, its commits were tested on top of that very PR.
 */
export function retargetedAfterLanding(
  d: Draft,
  previous: Readonly<PullRequestFacts>,
  facts: Readonly<PullRequestFacts>,
): boolean {
  return (
    facts.baseBranch === d.state.branch &&
    previous.stackedOn !== undefined &&
    d.pr(previous.stackedOn) === undefined
  );
}
