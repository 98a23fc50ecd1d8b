import { expect } from "chai";

/** The page's own module; imported by a path tsc does not follow (web/ is its own project, with the DOM types). */
const RUN_TREE = "../../../web/src/run-tree.js";

interface RunInFlight {
  id: string;
  kind: "main" | "bisection";
  prNumbers: number[];
  testBranch: string;
  testBranchSha: string;
  startedAt: string;
}
interface RunNode {
  run: RunInFlight;
  children: RunNode[];
}
const { bisectionTree } = (await import(RUN_TREE)) as { bisectionTree: (runs: RunInFlight[]) => RunNode[] };
const WAITS = "../../../web/src/pending-failure-waits.js";
type Queued = { prNumber: number; state: string };
const { pendingFailureWaits } = (await import(WAITS)) as {
  pendingFailureWaits: (prs: Queued[], runs: RunInFlight[], pr: Queued) => string;
};

const run = (id: string, kind: RunInFlight["kind"], prNumbers: number[]): RunInFlight => ({
  id,
  kind,
  prNumbers,
  testBranch: `mainline/test/main/${id}`,
  testBranchSha: "a".repeat(40),
  startedAt: "2026-11-23T16:00:00.000Z",
});

describe("the queue page's bisection tree", () => {
  it("puts each bisection run under the smallest run in flight that holds all its PRs", () => {
    const tree = bisectionTree([
      run("main-1", "main", [9, 10]),
      run("b-all", "bisection", [1, 2, 3, 4]),
      run("b-left", "bisection", [1, 2]),
      run("b-left-1", "bisection", [1]),
      run("b-right", "bisection", [3, 4]),
      run("b-other", "bisection", [7, 8]),
    ]);
    const shape = (nodes: typeof tree): unknown[] =>
      nodes.map((n) => [n.run.id, ...(n.children.length ? [shape(n.children)] : [])]);
    expect(shape(tree)).to.deep.equal([["b-all", [["b-left", [["b-left-1"]]], ["b-right"]]], ["b-other"]]);
  });

  it("shows no tree when no bisection runs", () => {
    expect(bisectionTree([run("main-1", "main", [1, 2])])).to.deep.equal([]);
  });
});

describe("the queue page's pending failures", () => {
  it("say which PRs ahead and which runs with the PR they wait for", () => {
    const prs = [
      { prNumber: 1, state: "TESTING" },
      { prNumber: 2, state: "PENDING_FAILURE" },
      { prNumber: 3, state: "TESTING" },
    ];
    const runs = [run("r1", "main", [1]), run("r3", "main", [1, 2, 3])];
    expect(pendingFailureWaits(prs, runs, prs[1]!)).to.equal(
      "#1 ahead to merge or leave and the run that contains it to finish",
    );
    expect(pendingFailureWaits([prs[1]!], [], prs[1]!)).to.equal("the next round of the queue");
  });
});
