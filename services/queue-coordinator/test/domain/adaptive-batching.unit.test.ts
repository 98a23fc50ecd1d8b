import { expect } from "chai";
import { adaptiveBatchSize } from "../../src/domain/adaptive-batching.js";
import { createPlannerState, createQueueSettings, plan, type PlannerState } from "../../src/domain/index.js";

const seen = (rate: number) => ({ rate, samples: 100 });

describe("ADAPTIVE batching", () => {
  it("fills to the ceiling while failures are rare, and shrinks batches as they become common", () => {
    expect(adaptiveBatchSize(8, 4, seen(0.01), 1000, 4)).to.equal(8);
    const sizes = [0.05, 0.15, 0.3, 0.6].map((q) => adaptiveBatchSize(8, 4, seen(q), 1000, 0));
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).to.be.at.most(sizes[i - 1] as number);
    expect(sizes[sizes.length - 1]).to.equal(1);
  });

  it("never goes over the ceiling nor under one", () => {
    for (const q of [0, 0.02, 0.2, 0.9, 1]) {
      for (const [waiting, free] of [
        [0, 3],
        [1, 0],
        [7, 2],
        [500, 1],
      ] as const) {
        const size = adaptiveBatchSize(6, 3, seen(q), waiting, free);
        expect(size).to.be.within(1, 6);
      }
    }
  });

  it("spreads a small backlog over free slots instead of packing it into one batch", () => {
    expect(adaptiveBatchSize(8, 4, seen(0.01), 8, 4)).to.equal(2);
    expect(adaptiveBatchSize(8, 4, seen(0.01), 3, 4)).to.equal(1);
    expect(adaptiveBatchSize(8, 4, seen(0.01), 3, 0), "no slot free: keeps filling").to.equal(8);
  });

  it("behaves as FIXED until it has seen enough PRs end", () => {
    expect(adaptiveBatchSize(8, 4, undefined, 1000, 4)).to.equal(8);
    expect(adaptiveBatchSize(8, 4, { rate: 0.9, samples: 3 }, 1000, 4)).to.equal(8);
  });

  it("sizes a queue's batches from what the queue has seen", () => {
    const settings = createQueueSettings({
      concurrency: 1,
      batch: true,
      batchingMinSize: 6,
      batchingMaxWaitTimeMinutes: 1,
      batchingMode: "ADAPTIVE",
    });
    const busy = (rate: number): PlannerState => ({
      ...createPlannerState("main", settings),
      observed: { rate, samples: 100 },
    });
    const secondRunSize = (state: PlannerState): number => {
      let s = state;
      const started: number[] = [];
      for (let n = 1; n <= 12; n++) {
        const facts = {
          headBranch: `feature-${n}`,
          headSha: `sha-${n}`,
          title: `PR ${n}`,
          author: "a",
          baseBranch: "main",
          open: true,
        };
        const step = plan(s, { type: "PR_SUBMITTED", pr: n, facts }, n);
        for (const d of step.decisions) if (d.type === "START_TEST_RUN") started.push(d.prs.length);
        s = step.state;
      }
      // The first PR found the slot free and started alone; the rest waited behind it.
      const first = Object.keys(s.runs)[0] as string;
      const step = plan(s, { type: "TEST_RUN_FINISHED", runId: first, outcome: "PASSED" }, 60_000);
      for (const d of step.decisions) if (d.type === "START_TEST_RUN") started.push(d.prs.length);
      return started[1] ?? 0;
    };
    expect(secondRunSize(busy(0.01))).to.equal(6);
    expect(secondRunSize(busy(0.4))).to.be.below(6);
  });
});
