import { expect } from "chai";
import { callUnary, type RemoteCallError } from "@mainline/kit/grpc/index";
import { QuarantineOverride, TestStatus } from "@mainline/proto/flaky";
import { FlakyFixture, junitFixture, REPO, surefireReport, T0 } from "./flaky-fixture.js";

describe("flaky-analytics over gRPC: the status of a batch of tests (the merge queue's question)", () => {
  let svc: FlakyFixture;
  let flakyId: string;
  let failingOnMainId: string;
  const org = "acme";
  const unknownId = "00000000-0000-5000-8000-000000000000";
  before(async () => {
    svc = await FlakyFixture.start();
    await svc.upload({ junitXml: [junitFixture("gradle-test-retry-unmerged.xml")] });
    // On main, test001 fails and test000 passes.
    await svc.upload({
      junitXml: [surefireReport(2, (i) => i === 1)],
      runStartedAt: new Date(T0 + 1000),
      commitSha: "b".repeat(40),
    });
    const { tests } = await svc.list();
    flakyId = tests.find((t) => t.name === "settlesBatch()")!.id;
    failingOnMainId = tests.find((t) => t.name === "test001")!.id;
  });
  after(() => svc.stop());

  const ask = (testIds: string[], targetBranch = "main") =>
    callUnary(svc.client.getTestsStatus.bind(svc.client), { org, repo: REPO, testIds, targetBranch });

  it("answers each test in the order asked: status, quarantine, and its latest run on the target", async () => {
    const { tests, quarantiningEnabled } = await ask([flakyId, failingOnMainId, unknownId]);
    expect(quarantiningEnabled).to.equal(false);
    expect(tests[0]?.statusSince).to.be.instanceOf(Date);
    expect(tests.map((t) => t.testId)).to.deep.equal([flakyId, failingOnMainId, unknownId]);
    expect(tests[0]).to.include({ known: true, status: TestStatus.FLAKY, quarantined: false });
    expect(tests[1]).to.include({ known: true, failedOnTarget: true });
    expect(tests[1]?.targetRunAt?.getTime()).to.equal(T0 + 1000);
    expect(tests[2]).to.include({ known: false, quarantined: false });
    expect(tests[2]?.failedOnTarget).to.equal(undefined);
  });

  it("says quarantined only once quarantining is on (auto, or an ALWAYS_QUARANTINE override)", async () => {
    await callUnary(svc.client.updateRepositorySettings.bind(svc.client), {
      org,
      repo: REPO,
      quarantiningEnabled: true,
      autoQuarantineEnabled: true,
    });
    await callUnary(svc.client.setTestQuarantineOverride.bind(svc.client), {
      org,
      repo: REPO,
      testId: failingOnMainId,
      quarantineOverride: QuarantineOverride.ALWAYS_QUARANTINE,
    });
    const { tests, quarantiningEnabled } = await ask([flakyId, failingOnMainId]);
    expect(quarantiningEnabled).to.equal(true);
    expect(tests.map((t) => t.quarantined)).to.deep.equal([true, true]);
  });

  it("does not look at the target when no branch is asked", async () => {
    const { tests } = await ask([failingOnMainId], "");
    expect(tests[0]?.failedOnTarget).to.equal(undefined);
  });

  it("refuses more than 500 tests and ids that are not test ids, naming the field", async () => {
    const tooMany = await ask(Array.from({ length: 501 }, () => unknownId)).catch((e: RemoteCallError) => e);
    expect((tooMany as RemoteCallError).message).to.match(/test_ids.*at most 500/);
    const bad = await ask([flakyId, "nope"]).catch((e: RemoteCallError) => e);
    expect((bad as RemoteCallError).message).to.match(/test_ids\[1\].*test id/);
  });
});
