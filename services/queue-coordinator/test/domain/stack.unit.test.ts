import { expect } from "chai";
import { FailedPreconditionError } from "@mainline/kit/errors/index";
import type { PullRequestFacts, QueueEvent } from "../../src/domain/index.js";
import { stackBelow, type StackCandidate } from "../../src/domain/stack.js";
import { driveToCompletion } from "./fake-ci.js";
import { describeDecision, num, Scenario } from "./scenario-table.js";

/** PR `n` stacked on `below` (its base branch is the head branch of `below`); none: on main. */
function stackedFacts(s: Scenario, n: number, below?: number): PullRequestFacts {
  const facts = s.facts(n);
  return below === undefined ? facts : { ...facts, baseBranch: `feature-${below}`, stackedOn: below };
}

/** Submits the top of the stack `letters` (bottom first, e.g. "ABC" submits C on B on A). */
function submitStack(s: Scenario, letters: string, include = true, extra: Partial<QueueEvent> = {}) {
  const prs = [...letters].map(num);
  const top = prs[prs.length - 1] as number;
  const below = prs.slice(0, -1).map((n, i) => ({ pr: n, facts: stackedFacts(s, n, prs[i - 1]) }));
  return s.apply({
    type: "PR_SUBMITTED",
    pr: top,
    facts: stackedFacts(s, top, prs[prs.length - 2]),
    stack: { below, include },
    ...extra,
  } as QueueEvent);
}

const decisionsOf = (s: Scenario): string[] => (s.last?.decisions ?? []).map((d) => describeDecision(d));

/** The detail of each PR's last state change, as the step's notices carried it. */
function recordDetails(s: Scenario): Map<number, string | undefined> {
  const details = new Map<number, string | undefined>();
  const apply = s.apply.bind(s);
  s.apply = (event) => {
    const step = apply(event);
    for (const x of step.notices) if (x.type === "PR_STATE_CHANGED") details.set(x.pr, x.detail);
    return step;
  };
  return details;
}

describe("planner: stacked pull requests (issue 28)", () => {
  it("submitting the top of a stack of three queues the two below and tests the three as one block", () => {
    const s = new Scenario();
    submitStack(s, "ABC");
    expect(decisionsOf(s)).to.deep.equal(["test ABC"]);
    expect([s.stateOf("A"), s.stateOf("B"), s.stateOf("C")]).to.deep.equal(["TESTING", "TESTING", "TESTING"]);
    s.play([
      ["pass ABC", {}, ["merge ABC"]],
      ["merged A", { A: "MERGED", B: "MERGED", C: "MERGED" }, []],
    ]);
  });

  it("a stack is never split by the batch size, and others batch around it", () => {
    const s = new Scenario({ batch: true, batchingMinSize: 2, concurrency: 1 });
    s.play([["submit D", {}, []]]);
    submitStack(s, "ABC");
    const batchOf = (n: number) => s.state.batches[String(s.state.prs[n]?.batchId)]?.prs ?? [];
    expect(batchOf(2)).to.equal(batchOf(1));
    expect(batchOf(3)).to.equal(batchOf(1));
    expect(batchOf(1).join(",")).to.contain("1,2,3");
    driveToCompletion(s, new Set());
    for (const l of "ABCD") expect(s.stateOf(l), l).to.equal("MERGED");
  });

  it("the middle PR breaks the tests: the bottom merges, the middle fails, the top fails naming it", () => {
    const s = new Scenario();
    submitStack(s, "ABC");
    const detail = recordDetails(s);
    driveToCompletion(s, new Set([2]));
    expect(s.stateOf("A")).to.equal("MERGED");
    expect(s.changesOf("B").at(-1)).to.equal("FAILED TESTS_FAILED");
    expect(s.changesOf("C").at(-1)).to.equal("FAILED DEPENDS_ON_FAILED");
    expect(detail.get(3)).to.equal("depends on #2, stacked below it, which failed");
    // C was never tested without B under it.
    for (const run of s.started)
      if (run.type === "START_TEST_RUN" && run.prs.includes(3))
        expect([...run.dependentPrs, ...run.prs], "a run holding C").to.include(2);
  });

  it("the bottom PR fails: every PR above fails with DEPENDS_ON_FAILED naming the bottom one", () => {
    const s = new Scenario();
    submitStack(s, "ABC");
    const detail = recordDetails(s);
    driveToCompletion(s, new Set([1]));
    expect(detail.get(3)).to.equal("depends on #1, stacked below it, which failed");
    expect(s.changesOf("A").at(-1)).to.equal("FAILED TESTS_FAILED");
    expect(s.changesOf("B").at(-1)).to.equal("FAILED DEPENDS_ON_FAILED");
    expect(s.changesOf("C").at(-1)).to.equal("FAILED DEPENDS_ON_FAILED");
  });

  it("cancelling the middle PR cancels the top, never the bottom", () => {
    const s = new Scenario();
    submitStack(s, "ABC");
    s.play([["cancel B", { B: "CANCELLED", C: "CANCELLED" }, ["cancel ABC", "test A"]]]);
    expect(s.changesOf("C").at(-1)).to.equal("CANCELLED CANCELLED_BY_USER");
    expect(s.stateOf("A")).to.equal("TESTING");
    s.play([
      ["pass A", {}, ["merge A"]],
      ["merged A", { A: "MERGED" }, []],
    ]);
  });

  it("without includeStack the top waits NOT_READY for the PR below, then joins its block", () => {
    const s = new Scenario();
    const detail = recordDetails(s);
    submitStack(s, "AB", false);
    expect(s.stateOf("B")).to.equal("NOT_READY");
    expect(s.changesOf("B")).to.deep.equal(["NOT_READY SUBMITTED", "NOT_READY AWAITING_STACK_BELOW"]);
    expect(detail.get(2)).to.equal("waits for #1, the pull request it is stacked on, to be queued");
    s.play([["submit A", { A: "TESTING", B: "TESTING" }, ["test AB"]]]);
  });

  it("a PR stacked on one already under test is tested on top of it and fails with it", () => {
    const s = new Scenario({ concurrency: 2 });
    s.play([["submit A", { A: "TESTING" }, ["test A"]]]);
    submitStack(s, "AB", false);
    expect(decisionsOf(s)).to.deep.equal(["test B on A"]);
    s.play([["fail A", { A: "FAILED", B: "FAILED" }]]);
    expect(s.changesOf("B").at(-1)).to.equal("FAILED DEPENDS_ON_FAILED");
  });

  it("an urgent top still goes behind the PRs it sits on", () => {
    const s = new Scenario({ concurrency: 1 });
    s.play([["submit D", { D: "TESTING" }, ["test D"]]]);
    submitStack(s, "ABC", true, { priority: { value: 0, name: "urgent" } } as Partial<QueueEvent>);
    expect(s.state.order.indexOf(1)).to.be.lessThan(s.state.order.indexOf(2));
    expect(s.state.order.indexOf(2)).to.be.lessThan(s.state.order.indexOf(3));
  });

  it("a queue may refuse stacks (maxStackSize 0) or cap their size, naming the setting", () => {
    const refusing = new Scenario({ maxStackSize: 0 });
    expect(() => submitStack(refusing, "AB")).to.throw(
      FailedPreconditionError,
      /takes no stacked pull requests \(maxStackSize is 0\)/,
    );
    expect(refusing.state.prs).to.deep.equal({});
    const capped = new Scenario({ maxStackSize: 2 });
    expect(() => submitStack(capped, "ABC")).to.throw(
      FailedPreconditionError,
      /3 pull requests, more than this queue's maxStackSize of 2/,
    );
    submitStack(capped, "AB");
    expect(capped.stateOf("B")).to.equal("TESTING");
  });
});

describe("stackBelow: resolving a stack from the repository's open PRs", () => {
  const facts = (head: string, base: string, open = true): PullRequestFacts => ({
    headBranch: head,
    headSha: `sha-${head}`,
    title: head,
    author: "dev",
    baseBranch: base,
    open,
  });
  const lookup = (prs: StackCandidate[]) => (branch: string) =>
    prs.filter((p) => p.facts.headBranch === branch);

  it("walks base branch to head branch down to the target, nearest first, skipping closed PRs", () => {
    const prs = [
      { number: 1, facts: facts("a", "main") },
      { number: 2, facts: facts("b", "a") },
      { number: 9, facts: facts("b", "a", false) },
    ];
    expect(stackBelow(3, facts("c", "b"), "main", lookup(prs)).map((c) => c.number)).to.deep.equal([2, 1]);
    expect(stackBelow(1, facts("a", "main"), "main", lookup(prs))).to.deep.equal([]);
  });

  it("refuses a loop of branches and a stack deeper than 32, with a clear error", () => {
    const loop = [
      { number: 1, facts: facts("a", "b") },
      { number: 2, facts: facts("b", "a") },
    ];
    expect(() => stackBelow(3, facts("c", "a"), "main", lookup(loop))).to.throw(
      FailedPreconditionError,
      /pull request 3 is stacked on a loop of branches \(#3 -> #1 -> #2 -> #1\)/,
    );
    expect(() => stackBelow(1, facts("a", "b"), "main", lookup(loop))).to.throw(
      FailedPreconditionError,
      /pull request 1 is stacked on a loop of branches \(#1 -> #2 -> #1\)/,
    );
    const deep = Array.from({ length: 40 }, (_, i) => ({
      number: i + 1,
      facts: facts(`b${i + 1}`, i === 0 ? "main" : `b${i}`),
    }));
    expect(() => stackBelow(41, facts("top", "b40"), "main", lookup(deep))).to.throw(
      FailedPreconditionError,
      /in a stack of more than 32 pull requests/,
    );
    expect(stackBelow(31, facts("top", "b30"), "main", lookup(deep))).to.have.length(30);
  });
});

describe("planner: a stack's priority (issue 28)", () => {
  it("changing the priority of one PR of a waiting stack moves the whole stack, still bottom first", () => {
    const s = new Scenario({ concurrency: 1 });
    s.play([
      ["submit D", { D: "TESTING" }, ["test D"]],
      ["submit E", {}, []],
    ]);
    submitStack(s, "ABC");
    expect(s.state.order).to.deep.equal([4, 5, 1, 2, 3]);
    s.play([["priority B high", {}, []]]);
    expect(s.state.order).to.deep.equal([4, 1, 2, 3, 5]);
    for (const n of [1, 2, 3]) expect(s.state.prs[n]?.priority.value, `#${n}`).to.be.lessThan(100);
  });
});
