import { FailedPreconditionError } from "@mainline/kit/errors/index";
import {
  impactedTargets,
  nextBelow,
  type PullRequestFacts,
  type StackCandidate,
  type StackedPullRequest,
} from "../domain/index.js";
import type { PullRequestFactsDocument, PullRequestRecords } from "../store/pull-request-records.js";

/**
 * Stacked pull requests as the repository's recorded facts say (issue 28): a PR whose base branch is the head
 * branch of another open PR sits on it. The walk and its bounds are the domain's (stack.ts); here, the lookups.
 */
export interface ResolvedStack {
  /** The submitted PR's facts, `stackedOn` set when it sits on another. */
  facts: PullRequestFacts;
  /** The PRs under it, bottom first, each with its facts (`stackedOn` set) and the targets known for it. */
  below: StackedPullRequest[];
}

export async function resolveStack(
  records: PullRequestRecords,
  repo: { org: string; repoKey: string },
  pr: number,
  facts: PullRequestFacts,
  target: string,
  /** Whether the PR merged through this queue already (the code host may not say it is closed yet). */
  landed: (pr: number) => Promise<boolean>,
): Promise<ResolvedStack> {
  const found: { candidate: StackCandidate; doc: PullRequestFactsDocument }[] = [];
  let landedBase = false;
  for (let base = facts.baseBranch; base !== target;) {
    const docs = await openByHead(records, repo, base);
    const next = nextBelow(
      pr,
      found.map((f) => f.candidate),
      docs.map((d) => ({ number: d.number, facts: d.facts })),
    );
    if (next === undefined) break;
    // Its commits are on the target: the stack ends above it, on the target (the code host retargets soon).
    if (await landed(next.number)) {
      landedBase = true;
      break;
    }
    found.push({
      candidate: next,
      doc: docs.find((d) => d.number === next.number) as PullRequestFactsDocument,
    });
    base = next.facts.baseBranch;
  }
  const bottomFirst = found.reverse();
  const below = bottomFirst.map(({ doc }, i): StackedPullRequest => {
    const under = bottomFirst[i - 1]?.candidate.number;
    return {
      pr: doc.number,
      facts: withStackedOn(doc.facts, under),
      ...(doc.targets ? { impactedTargets: impactedTargets(doc.targets.sha, doc.targets.targets) } : {}),
    };
  });
  const onTarget = (f: PullRequestFacts): PullRequestFacts => (landedBase ? { ...f, baseBranch: target } : f);
  if (below[0]?.facts !== undefined) below[0] = { ...below[0], facts: onTarget(below[0].facts) };
  const top = withStackedOn(facts, bottomFirst.at(-1)?.candidate.number);
  return { facts: below.length === 0 ? onTarget(top) : top, below };
}

/**
 * The branch a stacked PR's stack targets: the base branch of the bottom PR (no open PR heads it). Undefined when
 * the PR is not stacked, or when its branches loop (submitting it says why).
 */
export async function stackTargetBranch(
  records: PullRequestRecords,
  repo: { org: string; repoKey: string },
  pr: number,
  facts: PullRequestFacts,
): Promise<string | undefined> {
  const below: StackCandidate[] = [];
  try {
    for (;;) {
      const base = below.at(-1)?.facts.baseBranch ?? facts.baseBranch;
      const docs = await openByHead(records, repo, base);
      const next = nextBelow(
        pr,
        below,
        docs.map((d) => ({ number: d.number, facts: d.facts })),
      );
      if (next === undefined) return below.length === 0 ? undefined : base;
      below.push(next);
    }
  } catch (error) {
    if (error instanceof FailedPreconditionError) return undefined;
    throw error;
  }
}

/** A PR's facts for one queue: `stackedOn` names the open PR heading its base branch, unless that is the target. */
export async function stackedFacts(
  records: PullRequestRecords,
  repo: { org: string; repoKey: string },
  facts: PullRequestFacts,
  target: string,
): Promise<PullRequestFacts> {
  if (facts.baseBranch === target) return withStackedOn(facts, undefined);
  const docs = await openByHead(records, repo, facts.baseBranch);
  const under = docs.map((d) => d.number).sort((a, b) => a - b)[0];
  return withStackedOn(facts, under);
}

async function openByHead(
  records: PullRequestRecords,
  repo: { org: string; repoKey: string },
  branch: string,
): Promise<(PullRequestFactsDocument & { facts: PullRequestFacts })[]> {
  const docs = await records.factsByBranch(repo.org, repo.repoKey, branch);
  // A document may hold targets alone (uploaded before any pull_request event).
  return docs.filter(
    (d): d is PullRequestFactsDocument & { facts: PullRequestFacts } => d.facts?.open === true,
  );
}

function withStackedOn(facts: PullRequestFacts, under: number | undefined): PullRequestFacts {
  const { stackedOn: _stale, ...rest } = facts;
  return under === undefined ? rest : { ...rest, stackedOn: under };
}
