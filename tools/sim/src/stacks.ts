import {
  isTerminal,
  type PrState,
  type PullRequestFacts,
  type QueueEvent,
} from "@mainline/queue-coordinator/domain/index";
import type { SimulatedPr } from "./workload.js";

type Submitted = Extract<QueueEvent, { type: "PR_SUBMITTED" }>;

/**
 * A workload PR with `stackedOn` is submitted as the shell would submit it (issue 28): its base branch is the head
 * branch of the PR under it, and the PRs under it that have not ended come along (includeStack, the default). A
 * PR that has ended is no longer open: the stack stops there, as the shell's lookup of open PRs stops. A PR
 * that came along with a stack above it before its own arrival is not submitted again (null).
 */
export function submittedWithStack(
  event: Submitted,
  prs: ReadonlyMap<number, SimulatedPr>,
  states: Readonly<Record<number, PrState>>,
): Submitted | null {
  if (states[event.pr] !== undefined) return null;
  const under = (n: number): number | undefined => {
    const below = prs.get(n)?.stackedOn;
    const state = below === undefined ? undefined : states[below];
    return below === undefined || (state !== undefined && isTerminal(state)) ? undefined : below;
  };
  const first = under(event.pr);
  if (first === undefined || event.facts === undefined) return event;
  const chain: number[] = [];
  for (let n: number | undefined = first; n !== undefined && !chain.includes(n); n = under(n))
    chain.unshift(n);
  const below = chain.map((n, i) => ({
    pr: n,
    facts: stackedFacts(factsOf(n), chain[i - 1]),
    ...(event.impactedTargets ? { impactedTargets: { ...event.impactedTargets, sha: `sha-${n}` } } : {}),
  }));
  return { ...event, facts: stackedFacts(event.facts, first), stack: { below, include: true } };
}

export function factsOf(n: number): PullRequestFacts {
  return {
    headBranch: `feature-${n}`,
    headSha: `sha-${n}`,
    title: `PR ${n}`,
    author: "sim",
    baseBranch: "main",
    open: true,
  };
}

function stackedFacts(facts: PullRequestFacts, below: number | undefined): PullRequestFacts {
  return below === undefined ? facts : { ...facts, baseBranch: `feature-${below}`, stackedOn: below };
}
