import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { ExternalRunRegistry } from "../../src/runner/external-runner.js";

describe("ExternalRunRegistry", () => {
  it("resolves a waiting run when its report arrives", async () => {
    const registry = new ExternalRunRegistry();
    const waiting = registry.waitFor("run-1", 60_000);
    expect(registry.pending()).to.deep.equal(["run-1"]);

    const delivered = registry.report("run-1", {
      outcome: "failed",
      junitFiles: [{ path: "junit.xml", content: "<testsuite/>" }],
      detailsUrl: "https://ci.example/builds/7",
    });

    expect(delivered).to.be.true;
    expect(await waiting).to.deep.equal({
      outcome: "failed",
      junitFiles: [{ path: "junit.xml", content: "<testsuite/>" }],
      detailsUrl: "https://ci.example/builds/7",
    });
    expect(registry.pending()).to.deep.equal([]);
  });

  it("keeps a report that arrives before the wait and hands it over once", async () => {
    const registry = new ExternalRunRegistry();
    expect(registry.report("run-2", { outcome: "passed" })).to.be.false;

    expect(await registry.waitFor("run-2", 60_000)).to.deep.equal({ outcome: "passed", junitFiles: [] });
    expect(await registry.waitFor("run-2", 10)).to.deep.equal({ outcome: "timed_out", junitFiles: [] });
  });

  it("times out a run nobody reports and stops waiting for it", async () => {
    const registry = new ExternalRunRegistry();
    expect(await registry.waitFor("run-3", 10)).to.deep.equal({ outcome: "timed_out", junitFiles: [] });
    expect(registry.pending()).to.deep.equal([]);
  });

  it("does not mix up reports of different runs", async () => {
    const registry = new ExternalRunRegistry();
    const a = registry.waitFor("run-a", 60_000);
    const b = registry.waitFor("run-b", 60_000);
    registry.report("run-b", { outcome: "failed" });
    registry.report("run-a", { outcome: "passed" });
    expect((await a).outcome).to.equal("passed");
    expect((await b).outcome).to.equal("failed");
  });

  it("bounds how many early reports it keeps, dropping the oldest", async () => {
    const registry = new ExternalRunRegistry({ maxEarlyReports: 2 });
    registry.report("old", { outcome: "passed" });
    registry.report("mid", { outcome: "passed" });
    registry.report("new", { outcome: "failed" });
    expect((await registry.waitFor("new", 60_000)).outcome).to.equal("failed");
    expect((await registry.waitFor("mid", 60_000)).outcome).to.equal("passed");
    expect((await registry.waitFor("old", 10)).outcome).to.equal("timed_out");
  });

  it("rejects bad run ids, timeouts and outcomes", () => {
    const registry = new ExternalRunRegistry();
    expect(() => registry.waitFor("", 1000)).to.throw(InvalidArgumentError);
    expect(() => registry.waitFor("run", 0)).to.throw(InvalidArgumentError);
    expect(() => registry.waitFor("run", Number.NaN)).to.throw(InvalidArgumentError);
    expect(() => registry.report("run", { outcome: "timed_out" as "passed" })).to.throw(InvalidArgumentError);
  });
});
