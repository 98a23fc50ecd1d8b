import { expect } from "chai";
import { createServer } from "node:net";
import { freePort } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { runTestEvidence } from "../../src/app/run-test-knowledge.js";
import { FlakyAnalyticsTestStatus } from "../../src/app/test-status-source.js";

const queue = { org: "acme", repo: { host: "github.com", owner: "acme", name: "app" }, targetBranch: "main" };
const failed = {
  failed: [{ id: "7d656bed-9898-5b34-8c4e-a9beecbe2eff", name: "cart › checkout" }],
  truncated: false,
};
const logger = createLogger("knowledge-test", "silent");

describe("what a failed run's tests are known as, when flaky-analytics cannot answer", function () {
  this.timeout(20_000);

  it("says the knowledge is unavailable, naming why, when flaky-analytics is down", async () => {
    const source = new FlakyAnalyticsTestStatus(`127.0.0.1:${await freePort()}`);
    try {
      const started = Date.now();
      const knowledge = await runTestEvidence({ source, deadlineMs: 2_000, logger }, queue, failed);
      expect(Date.now() - started).to.be.below(5_000);
      expect(knowledge).to.deep.include({ tests: failed, knowledge: null });
      expect(knowledge?.unavailableReason).to.match(/^flaky-analytics did not answer: /);
    } finally {
      source.close();
    }
  });

  it("gives up at the deadline when flaky-analytics accepts the connection but never answers", async () => {
    // A socket that accepts and says nothing: the call can only end by its deadline.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    const source = new FlakyAnalyticsTestStatus(`127.0.0.1:${port}`);
    try {
      const started = Date.now();
      const knowledge = await runTestEvidence({ source, deadlineMs: 300, logger }, queue, failed);
      expect(knowledge?.knowledge).to.equal(null);
      expect(knowledge?.unavailableReason).to.match(/deadline/i);
      expect(Date.now() - started).to.be.below(3_000);
    } finally {
      source.close();
      silent.close();
    }
  });

  it("asks nothing for a run without test results, or whose reports name no failed test", async () => {
    const source = new FlakyAnalyticsTestStatus(`127.0.0.1:${await freePort()}`);
    try {
      expect(await runTestEvidence({ source, deadlineMs: 300, logger }, queue, undefined)).to.equal(
        undefined,
      );
      const none = { failed: [], truncated: false };
      expect(await runTestEvidence({ source, deadlineMs: 300, logger }, queue, none)).to.deep.equal({
        tests: none,
        knowledge: null,
      });
    } finally {
      source.close();
    }
  });
});
