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

const PR_RUNS = "../../../web/src/pr-runs.js";
const { pullRequestRunIds, runIdOfOutput } = (await import(PR_RUNS)) as {
  pullRequestRunIds: (
    history: { testRunId?: string }[],
    current: string | undefined,
    max?: number,
  ) => { ids: string[]; older: number };
  runIdOfOutput: (url: string | undefined) => string | undefined;
};

describe("the PR page's test runs", () => {
  // A PR tested in a batch that failed, bisected alone, then restarted and tested again.
  const history = [
    { reason: "SUBMITTED" },
    { reason: "TEST_RUN_STARTED", testRunId: "run-1" },
    { reason: "TESTS_FAILED", testRunId: "run-1" },
    { reason: "BISECTION_PASSED", testRunId: "run-2" },
    { reason: "RESTARTED" },
    { reason: "TEST_RUN_STARTED", testRunId: "run-3" },
  ];

  it("lists every run the PR was in, newest first, each once, the current one first", () => {
    expect(pullRequestRunIds(history, undefined)).to.deep.equal({
      ids: ["run-3", "run-2", "run-1"],
      older: 0,
    });
    // getQueue may name the run that just started before the history does.
    expect(pullRequestRunIds(history, "run-4").ids).to.deep.equal(["run-4", "run-3", "run-2", "run-1"]);
    expect(pullRequestRunIds(history, "run-3").ids).to.deep.equal(["run-3", "run-2", "run-1"]);
    expect(pullRequestRunIds([{}], undefined)).to.deep.equal({ ids: [], older: 0 });
  });

  it("keeps to the latest few and counts the older ones", () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ testRunId: `run-${i}` }));
    const { ids, older } = pullRequestRunIds(many, undefined);
    expect(ids).to.have.length(10);
    expect(ids[0]).to.equal("run-24");
    expect(older).to.equal(15);
  });

  it("finds which run a failureDetailsUrl names, on this gateway or behind a proxy", () => {
    expect(runIdOfOutput("https://mainline.example/v1/test-runs/r%2F1/output")).to.equal("r/1");
    expect(runIdOfOutput("/v1/test-runs/abc/output")).to.equal("abc");
    expect(runIdOfOutput("https://ci.example/builds/12")).to.equal(undefined);
    expect(runIdOfOutput(undefined)).to.equal(undefined);
  });
});

const BATCHES = "../../../web/src/batches.js";
interface Batched {
  prNumber: number;
  testRunId?: string;
  batchId?: string;
  batchStatus?: string;
  lane?: string;
}
const { waitingBatches, laneLabels } = (await import(BATCHES)) as {
  waitingBatches: (prs: Batched[]) => {
    batches: { batchId: string; status: string; lane?: string; prs: Batched[] }[];
    unbatched: Batched[];
  };
  laneLabels: (prs: Batched[]) => Map<string, string>;
};

describe("the queue page's waiting batches and lanes", () => {
  // PARALLEL: #1 under test in lane-1; #2 and #3 batched behind it in lane-1; #4 alone in lane-4; #5 not ready.
  const prs: Batched[] = [
    { prNumber: 1, testRunId: "run-1", batchId: "1", batchStatus: "TESTING", lane: "lane-1" },
    { prNumber: 2, batchId: "2", batchStatus: "QUEUED", lane: "lane-1" },
    { prNumber: 4, batchId: "4", batchStatus: "FORMING", lane: "lane-4" },
    { prNumber: 3, batchId: "2", batchStatus: "QUEUED", lane: "lane-1" },
    { prNumber: 5 },
  ];

  it("groups the waiting PRs by planned batch, in queue order, and keeps the rest apart", () => {
    const { batches, unbatched } = waitingBatches(prs);
    expect(batches.map((b) => [b.batchId, b.status, b.lane, b.prs.map((p) => p.prNumber)])).to.deep.equal([
      ["2", "QUEUED", "lane-1", [2, 3]],
      ["4", "FORMING", "lane-4", [4]],
    ]);
    expect(unbatched.map((p) => p.prNumber)).to.deep.equal([5]);
  });

  it("numbers the lanes in queue order", () => {
    expect([...laneLabels(prs)]).to.deep.equal([
      ["lane-1", "Lane 1"],
      ["lane-4", "Lane 2"],
    ]);
  });
});
