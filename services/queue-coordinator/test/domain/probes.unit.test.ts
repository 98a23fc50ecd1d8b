import { expect } from "chai";
import {
  createPlannerState,
  createQueueSettings,
  plan,
  type Decision,
  type PlannerState,
  type QueueEvent,
} from "../../src/domain/index.js";
import { parsePriority } from "../../src/api/command-parser.js";

type StartRun = Extract<Decision, { type: "START_TEST_RUN" }>;

/** A queue in one lane that has seen many failures lately (so probing pays), and a way to drive it. */
function busyQueue(rate: number) {
  const settings = createQueueSettings({
    concurrency: 3,
    bisectionConcurrency: 4,
    batch: true,
    batchingMinSize: 2,
    batchingMaxWaitTimeMinutes: 1,
  });
  let state: PlannerState = { ...createPlannerState("main", settings), observed: { rate, samples: 100 } };
  let now = 0;
  const started: StartRun[] = [];
  const states: Record<number, string> = {};
  const step = (event: QueueEvent): Decision[] => {
    now += 1000;
    const result = plan(state, event, now);
    state = result.state;
    for (const d of result.decisions) if (d.type === "START_TEST_RUN") started.push(d);
    for (const n of result.notices) if (n.type === "PR_STATE_CHANGED") states[n.pr] = n.to;
    return result.decisions;
  };
  const submit = (n: number, priority?: "high"): Decision[] =>
    step({
      type: "PR_SUBMITTED",
      pr: n,
      ...(priority === undefined ? {} : { priority: parsePriority(priority) }),
      facts: {
        headBranch: `f-${n}`,
        headSha: `s-${n}`,
        title: `PR ${n}`,
        author: "a",
        baseBranch: "main",
        open: true,
      },
    });
  const finish = (run: StartRun, outcome: "PASSED" | "FAILED"): Decision[] =>
    step({ type: "TEST_RUN_FINISHED", runId: run.runId, outcome });
  return { submit, finish, started, states, state: () => state };
}

const isProbe = (d: StartRun): boolean =>
  d.kind === "bisection" && d.dependentPrs.length === 0 && d.prs.length > 1;

describe("planner: probes of waiting batches (one lane)", () => {
  it("tests a batch that waits for a main slot alone on the target, when failures are common", () => {
    const q = busyQueue(0.3);
    for (let n = 1; n <= 12; n++) q.submit(n);
    const main = q.started.filter((d) => d.kind === "main");
    expect(main.map((d) => d.prs)).to.deep.equal([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const probes = q.started.filter(isProbe);
    expect(probes.map((d) => d.prs)).to.deep.include([7, 8]);
    for (const p of probes) expect(q.states[p.prs[0] as number]).to.equal("PENDING");
  });

  it("does not probe when failures are rare: the probe would cost more than it saves", () => {
    const q = busyQueue(0.01);
    for (let n = 1; n <= 12; n++) q.submit(n);
    expect(q.started.filter(isProbe)).to.deep.equal([]);
  });

  it("a failed probe steps its batch aside before anything is built on it, and fails nobody by itself", () => {
    const q = busyQueue(0.3);
    for (let n = 1; n <= 12; n++) q.submit(n);
    const probe = q.started.find((d) => isProbe(d) && d.prs.join() === "7,8") as StartRun;
    q.finish(probe, "FAILED");
    expect(q.states[7]).to.equal("PENDING_FAILURE");
    expect(q.states[8]).to.equal("PENDING_FAILURE");
    // Its bisection starts at once, on the target: the batches ahead were not in the failing run.
    const search = q.started.filter((d) => d.kind === "bisection" && !isProbe(d));
    expect(search.map((d) => d.prs)).to.deep.include([7]);
    // The line goes on without it: a main run finishes and the next batch is built without 7 and 8.
    const [first] = q.started.filter((d) => d.kind === "main");
    q.finish(first as StartRun, "PASSED");
    const next = q.started.filter((d) => d.kind === "main").slice(3);
    expect(next.length).to.be.greaterThan(0);
    for (const run of next) {
      expect([...run.prs, ...run.dependentPrs]).to.not.include(7);
      expect([...run.prs, ...run.dependentPrs]).to.not.include(8);
    }
    expect(Object.values(q.states)).to.not.include("FAILED");
  });

  it("a passing probe merges nothing: the batch still merges only from its main run", () => {
    const q = busyQueue(0.3);
    for (let n = 1; n <= 12; n++) q.submit(n);
    const probe = q.started.find((d) => isProbe(d) && d.prs.join() === "7,8") as StartRun;
    const decisions = q.finish(probe, "PASSED");
    expect(decisions.filter((d) => d.type === "MERGE")).to.deep.equal([]);
    expect(q.states[7]).to.equal("PENDING");
  });

  it("a more urgent PR goes ahead of a probed batch without re-forming it: the probe goes on", () => {
    const q = busyQueue(0.3);
    for (let n = 1; n <= 12; n++) q.submit(n);
    const probe = q.started.find((d) => isProbe(d) && d.prs.join() === "7,8") as StartRun;
    const decisions = q.submit(13, "high");
    expect(decisions.filter((d) => d.type === "CANCEL_TEST_RUN")).to.deep.equal([]);
    expect(q.state().runs[probe.runId]?.status).to.equal("RUNNING");
    const order = q.state().order;
    expect(order.indexOf(13)).to.be.lessThan(order.indexOf(7));
    // Its answer still counts: a failure steps the same batch aside.
    q.finish(probe, "FAILED");
    expect(q.states[7]).to.equal("PENDING_FAILURE");
    expect(q.states[8]).to.equal("PENDING_FAILURE");
  });
});
