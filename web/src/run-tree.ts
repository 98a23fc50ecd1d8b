import type { TestRunInFlight } from "@mainline/contract";

/** A test run in flight, as getQueue's `testRunsInFlight` lists it. */
export type RunInFlight = TestRunInFlight;

export interface RunNode {
  run: RunInFlight;
  children: RunNode[];
}

const within = (inner: RunInFlight, outer: RunInFlight) =>
  inner.id !== outer.id &&
  inner.prNumbers.length < outer.prNumbers.length &&
  inner.prNumbers.every((n) => outer.prNumbers.includes(n));

/**
 * The bisection runs as a tree: a run tests half of what a larger one tests, so a run goes under the smallest
 * run in flight whose PRs hold all of its own (getQueue names no parent; the PR sets say it).
 */
export function bisectionTree(runs: RunInFlight[]): RunNode[] {
  const bisections = runs.filter((r) => r.kind === "bisection");
  const nodes = new Map(bisections.map((run) => [run.id, { run, children: [] as RunNode[] }]));
  const roots: RunNode[] = [];
  for (const run of bisections) {
    const parent = bisections
      .filter((outer) => within(run, outer))
      .sort((a, b) => a.prNumbers.length - b.prNumbers.length)[0];
    (parent ? nodes.get(parent.id)!.children : roots).push(nodes.get(run.id)!);
  }
  return roots;
}
