import { expect } from "chai";
import { callUnary } from "@mainline/kit/grpc/index";
import type { RemoteCallError } from "@mainline/kit/grpc/index";
import { QuarantineOverride } from "@mainline/proto/flaky";
import type { UpdateRepositorySettingsRequest } from "@mainline/proto/flaky";
import { FlakyFixture, junitFixture, REPO } from "./flaky-fixture.js";

async function rejection(promise: Promise<unknown>): Promise<RemoteCallError> {
  try {
    await promise;
  } catch (error) {
    return error as RemoteCallError;
  }
  throw new Error("expected the call to fail");
}

describe("flaky-analytics over gRPC: quarantine, settings, code owners and tickets", () => {
  let svc: FlakyFixture;
  let flakyId: string;
  let healthyId: string;
  const org = "acme";
  before(async () => {
    svc = await FlakyFixture.start();
    await svc.upload({
      junitXml: [junitFixture("gradle-test-retry-unmerged.xml"), junitFixture("jest-junit.xml")],
    });
    const { tests } = await svc.list();
    flakyId = tests.find((t) => t.name === "settlesBatch()")!.id;
    // Failed once, never passed: listed, but healthy.
    healthyId = tests.find((t) => t.name === "parseAmount rejects garbage")!.id;
  });
  after(() => svc.stop());

  const quarantineConfig = () =>
    callUnary(svc.client.getQuarantineConfig.bind(svc.client), { org, repo: REPO });
  const setOverride = (testId: string, quarantineOverride: QuarantineOverride) =>
    callUnary(svc.client.setTestQuarantineOverride.bind(svc.client), {
      org,
      repo: REPO,
      testId,
      quarantineOverride,
    });
  /** The override one test's page shows (get-test), so a user sees it before changing it. */
  const overrideOf = async (testId: string) =>
    (await callUnary(svc.client.getTest.bind(svc.client), { org, repo: REPO, testId })).test
      ?.quarantineOverride;
  const update = (patch: Omit<UpdateRepositorySettingsRequest, "org" | "repo">) =>
    callUnary(svc.client.updateRepositorySettings.bind(svc.client), {
      org,
      repo: REPO,
      ...patch,
    });

  it("reports quarantining disabled until the repository enables it", async () => {
    expect(await quarantineConfig()).to.deep.equal({ isDisabled: true, testIds: [] });
    await update({ quarantiningEnabled: true });
    // Quarantining on but auto-quarantine off: only overrides quarantine.
    expect(await quarantineConfig()).to.deep.equal({ isDisabled: false, testIds: [] });
  });

  it("auto-quarantines flaky tests, and overrides win both ways", async () => {
    await update({ autoQuarantineEnabled: true });
    expect((await quarantineConfig()).testIds).to.include(flakyId);
    expect(await overrideOf(flakyId)).to.equal(QuarantineOverride.NONE);
    await setOverride(flakyId, QuarantineOverride.NEVER_QUARANTINE);
    expect((await quarantineConfig()).testIds).to.not.include(flakyId);
    const listed = (await svc.list()).tests.find((t) => t.id === flakyId);
    expect(listed?.quarantined).to.equal(false);
    expect(listed?.quarantineOverride).to.equal(QuarantineOverride.NEVER_QUARANTINE);
    expect(await overrideOf(flakyId)).to.equal(QuarantineOverride.NEVER_QUARANTINE);
    await setOverride(flakyId, QuarantineOverride.NONE);
    expect((await quarantineConfig()).testIds).to.include(flakyId);
    expect((await svc.list()).tests.find((t) => t.id === flakyId)?.quarantined).to.equal(true);
    expect(await overrideOf(flakyId)).to.equal(QuarantineOverride.NONE);
  });

  it("quarantines a healthy test with ALWAYS_QUARANTINE", async () => {
    expect((await quarantineConfig()).testIds).to.not.include(healthyId);
    await setOverride(healthyId, QuarantineOverride.ALWAYS_QUARANTINE);
    expect((await quarantineConfig()).testIds).to.include(healthyId);
    expect(await overrideOf(healthyId)).to.equal(QuarantineOverride.ALWAYS_QUARANTINE);
  });

  it("refuses overrides of unknown tests and tests of another organisation", async () => {
    const unknown = await rejection(
      setOverride("00000000-0000-5000-8000-000000000000", QuarantineOverride.ALWAYS_QUARANTINE),
    );
    expect(unknown.code).to.equal("NOT_FOUND");
    const otherOrg = await rejection(
      callUnary(svc.client.setTestQuarantineOverride.bind(svc.client), {
        org: "intruder",
        repo: REPO,
        testId: flakyId,
        quarantineOverride: QuarantineOverride.ALWAYS_QUARANTINE,
      }),
    );
    expect(otherOrg.code).to.equal("NOT_FOUND");
    const unset = await rejection(setOverride(flakyId, QuarantineOverride.UNSPECIFIED));
    expect(unset.message).to.match(/^quarantine_override:/);
  });

  it("validates settings, naming the API field, and keeps the rest unchanged", async () => {
    const bad = await rejection(update({ flakyFailureRateThreshold: 1.5 }));
    expect(bad.code).to.equal("INVALID_ARGUMENT");
    expect(bad.message).to.match(
      /^flaky_failure_rate_threshold: must be a number greater than 0 and at most 1/,
    );
    const badWindow = await rejection(update({ recoveryWindowHours: 0 }));
    expect(badWindow.message).to.match(/^recovery_window_hours:/);
    const updated = await update({ minRuns: 20, defaultBranch: "trunk", brokenAfterConsecutiveFailures: 3 });
    expect(updated.settings).to.deep.include({
      minRuns: 20,
      defaultBranch: "trunk",
      brokenAfterConsecutiveFailures: 3,
      quarantiningEnabled: true,
      flakyFailureRateThreshold: 0.2,
      recoveryWindowHours: 168,
    });
  });

  it("resolves code owners from the repository's CODEOWNERS at read time (last match wins)", async () => {
    const response = await callUnary(svc.client.setCodeowners.bind(svc.client), {
      org,
      repo: REPO,
      content: "*.js @acme/web\nsrc/ @acme/core docs@acme.dev\n[oops] @nobody\n",
    });
    expect(response.rules).to.equal(2);
    expect(response.problems).to.have.length(1);
    const jest = (await svc.list()).tests.find((t) => t.filePath === "src/parser.test.js");
    expect(jest?.codeowners).to.deep.equal(["@acme/core", "docs@acme.dev"]);
  });

  it("links a ticket, and refuses a link that is not an http(s) URL", async () => {
    await callUnary(svc.client.linkTicket.bind(svc.client), {
      org,
      repo: REPO,
      testId: flakyId,
      url: "https://jira.acme.dev/browse/PAY-12",
    });
    const listed = (await svc.list()).tests.find((t) => t.id === flakyId);
    expect(listed?.ticket?.htmlUrl).to.equal("https://jira.acme.dev/browse/PAY-12");
    const bad = await rejection(
      callUnary(svc.client.linkTicket.bind(svc.client), {
        org,
        repo: REPO,
        testId: flakyId,
        url: "javascript:alert(1)",
      }),
    );
    expect(bad.message).to.match(/^url: must be an absolute http\(s\) URL/);
    await callUnary(svc.client.linkTicket.bind(svc.client), { org, repo: REPO, testId: flakyId, url: "" });
    expect((await svc.list()).tests.find((t) => t.id === flakyId)?.ticket).to.equal(undefined);
  });
});
