import { expect } from "chai";
import type { RemoteCallError } from "@mainline/kit/grpc/index";
import { TestStatus, TestStatusChanged } from "@mainline/proto/flaky";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { FlakyFixture, HOUR, junitFixture, PUBLIC_URL, REPO, surefireReport, T0 } from "./flaky-fixture.js";

async function rejection(promise: Promise<unknown>): Promise<RemoteCallError> {
  try {
    await promise;
  } catch (error) {
    return error as RemoteCallError;
  }
  throw new Error("expected the call to fail");
}

describe("flaky-analytics over gRPC: ingest and list-failing-tests", () => {
  let svc: FlakyFixture;

  before(async () => {
    svc = await FlakyFixture.start();
  });
  after(() => svc.stop());

  it("a test that failed and passed on retry is listed as flaky, with every field of the record", async () => {
    const events: TestStatusChanged[] = [];
    const sub = svc.nc.subscribe(SUBJECTS.testStatusEvent, {
      callback: (_err, msg) => events.push(TestStatusChanged.decode(msg.data)),
    });
    const response = await svc.upload({
      junitXml: [junitFixture("gradle-test-retry-unmerged.xml")],
      prNumber: 42,
    });
    // Gradle writes the retry as a second <testcase>: one result, passed on its second attempt.
    expect(response).to.include({ files: 1, results: 1, passed: 1, failed: 0, newTests: 1 });

    const listed = await svc.list();
    expect(listed.tests).to.have.length(1);
    const test = listed.tests[0]!;
    expect(test.name).to.equal("settlesBatch()");
    expect(test.classname).to.equal("com.acme.ledger.SettlementTest");
    expect(test.status?.value).to.equal(TestStatus.FLAKY);
    expect(test.status?.reason).to.match(/failed and then passed on retry/);
    expect(test.status?.timestamp?.getTime()).to.equal(T0);
    expect(test.repository?.htmlUrl).to.equal("https://github.com/acme/widgets");
    expect(test.htmlUrl).to.equal(`${PUBLIC_URL}/flaky-tests/acme/github.com/acme/widgets/tests/${test.id}`);
    expect(test.id).to.match(/^[0-9a-f-]{36}$/);
    expect(test.failureRateLast7d).to.equal(1);
    expect(test.failureRateLast24h).to.equal(1);
    expect(test.pullRequestsImpactedLast7d).to.equal(1);
    expect(test.quarantined).to.equal(false);
    expect(test.codeowners).to.deep.equal([]);
    expect(test.mostCommonFailures).to.have.length(1);
    expect(test.mostCommonFailures[0]).to.deep.include({ occurrenceCount: 1 });
    expect(test.mostCommonFailures[0]?.summary).to.match(/SocketTimeoutException: Read timed out/);
    expect(listed.page).to.deep.include({
      totalRows: 1,
      totalPages: 1,
      pageIndex: 0,
      nextPageToken: "",
      prevPageToken: "",
    });
    expect(listed.page?.lastPageToken).to.not.equal("");

    await svc.nc.flush();
    sub.unsubscribe();
    const change = events.find((event) => event.testId === test.id);
    expect(change, "a TestStatusChanged event").to.not.equal(undefined);
    expect(change).to.deep.include({
      oldStatus: TestStatus.UNSPECIFIED,
      newStatus: TestStatus.FLAKY,
      org: "acme",
    });
  });

  it("keeps reruns of one Go test as attempts of one run and lists only tests that failed", async () => {
    const response = await svc.upload({ junitXml: [junitFixture("gotestsum-reruns.xml")] });
    expect(response.results).to.be.greaterThan(0);
    const names = (await svc.list()).tests.map((test) => test.name);
    expect(names).to.include.members(["TestFlakyClock", "TestBalance", "TestBalance/negative_amount"]);
    expect(names).to.not.include("TestPostEntry");
    expect(names).to.not.include("TestSkipsClosedPeriod");
  });

  it("counts a failure inside [start_time, end_time) only, to the millisecond", async () => {
    const at = T0 + 30 * 24 * HOUR + 17 * 60_000; // a day of its own, mid-hour
    await svc.upload({
      junitXml: [junitFixture("jest-junit.xml")],
      runStartedAt: new Date(at),
      commitSha: "b".repeat(40),
    });
    const count = async (start: number, end: number) =>
      (await svc.list({ startTime: new Date(start), endTime: new Date(end) })).page?.totalRows;
    expect(await count(at, at + 1)).to.be.greaterThan(0);
    expect(await count(at + 1, at + HOUR)).to.equal(0);
    expect(await count(at - HOUR, at)).to.equal(0);
  });

  it("pages with opaque tokens: every failing test exactly once, in a stable order", async () => {
    const org = "paging";
    const at = T0 + 60 * 24 * HOUR;
    await svc.upload({
      org,
      junitXml: [surefireReport(25, (i) => i % 5 !== 4), surefireReport(5, () => true, "com.acme.OtherTest")],
      runStartedAt: new Date(at),
    });
    const window = { org, orgUrlSlug: org, startTime: new Date(at - HOUR), endTime: new Date(at + HOUR) };
    const first = await svc.list({ ...window, pageQuery: { pageSize: 10, pageToken: "" } });
    expect(first.page).to.deep.include({ totalRows: 25, totalPages: 3, pageIndex: 0, prevPageToken: "" });
    const seen = first.tests.map((t) => t.id);
    let page = first;
    while (page.page?.nextPageToken) {
      page = await svc.list({ ...window, pageQuery: { pageSize: 10, pageToken: page.page.nextPageToken } });
      seen.push(...page.tests.map((t) => t.id));
    }
    expect(page.page?.pageIndex).to.equal(2);
    expect(page.tests).to.have.length(5);
    expect(new Set(seen).size).to.equal(25);
    expect(seen).to.deep.equal([...seen].sort());

    const last = await svc.list({
      ...window,
      pageQuery: { pageSize: 10, pageToken: first.page!.lastPageToken },
    });
    expect(last.tests.map((t) => t.id)).to.deep.equal(page.tests.map((t) => t.id));
    const back = await svc.list({
      ...window,
      pageQuery: { pageSize: 10, pageToken: last.page!.prevPageToken },
    });
    expect(back.page?.pageIndex).to.equal(1);

    // The same token for another organisation's listing, or another window, is refused.
    const token = first.page!.nextPageToken;
    const otherWindow = await rejection(
      svc.list({
        ...window,
        endTime: new Date(at + 2 * HOUR),
        pageQuery: { pageSize: 10, pageToken: token },
      }),
    );
    expect(otherWindow.code).to.equal("INVALID_ARGUMENT");
    expect(otherWindow.message).to.match(/^page_query\.page_token: was not issued for this organisation/);
    const otherOrg = await rejection(
      svc.list({ ...window, org: "acme", orgUrlSlug: "acme", pageQuery: { pageSize: 10, pageToken: token } }),
    );
    expect(otherOrg.code).to.equal("INVALID_ARGUMENT");
    const forged = await rejection(
      svc.list({ ...window, pageQuery: { pageSize: 10, pageToken: "eyJ2IjoxLCJwIjoxfQ.AAAA" } }),
    );
    expect(forged.message).to.match(/^page_query\.page_token:/);
  });

  it("refuses an org_url_slug that is not the token's organisation, and the spec's bad requests", async () => {
    const wrongOrg = await rejection(svc.list({ orgUrlSlug: "someone-else" }));
    expect(wrongOrg.code).to.equal("UNAUTHENTICATED");
    const cases: [object, RegExp][] = [
      [
        { pageQuery: { pageSize: 0, pageToken: "" } },
        /^page_query\.page_size: must be an integer from 1 to 100/,
      ],
      [{ pageQuery: { pageSize: 101, pageToken: "" } }, /^page_query\.page_size:/],
      [{ startTime: undefined }, /^start_time: is required/],
      [{ endTime: new Date(T0 + 8 * 24 * HOUR) }, /^end_time: must be within 7 days of start_time/],
      [{ endTime: new Date(T0 - 48 * HOUR) }, /^end_time: must be after start_time/],
      [{ repo: { ...REPO, owner: "" } }, /^repo\.owner:/],
      [{ pageQuery: undefined }, /^page_query: is required/],
    ];
    for (const [request, message] of cases) {
      const error = await rejection(svc.list(request));
      expect(error.code, JSON.stringify(request)).to.equal("INVALID_ARGUMENT");
      expect(error.message).to.match(message);
    }
  });

  it("stores nothing of an upload with one malformed file, and says which file and where", async () => {
    const org = "malformed";
    const good = junitFixture("pytest-xunit2.xml");
    const bad = junitFixture("jest-junit.xml").replace("</testsuite>", "</testsuit>");
    const error = await rejection(svc.upload({ org, junitXml: [good, bad] }));
    expect(error.code).to.equal("INVALID_ARGUMENT");
    expect(error.message).to.match(/^junit\[1\]: .*line \d+/);
    expect((await svc.list({ org, orgUrlSlug: org })).tests).to.have.length(0);
    // Nothing half-stored: the good file alone still makes new tests of all its cases.
    const retried = await svc.upload({ org, junitXml: [good] });
    expect(retried.newTests).to.equal(retried.results);
  });

  it("refuses uploads without what the rules need, naming the field", async () => {
    const missing = await rejection(
      svc.upload({ junitXml: [junitFixture("pytest-xunit1.xml")], commitSha: "" }),
    );
    expect(missing.message).to.match(/^commit_sha: is required/);
    const none = await rejection(svc.upload({ junitXml: [] }));
    expect(none.message).to.match(/^junit: must hold at least one file/);
    const long = await rejection(
      svc.upload({
        junitXml: [junitFixture("pytest-xunit1.xml")],
        repo: { host: "h", owner: "o", name: "n".repeat(3500) },
      }),
    );
    expect(long.message).to.equal("repo.name: must be at most 255 bytes (UTF-8)");
  });

  it("applies a repeated upload id once", async () => {
    const org = "repeat";
    const failing = { org, junitXml: [surefireReport(3, () => true)], uploadId: "ci-run-1" };
    const first = await svc.upload(failing);
    const again = await svc.upload(failing);
    expect(again).to.deep.equal(first);
    await svc.upload({ org, junitXml: [surefireReport(3, () => false)], uploadId: "ci-run-2" });
    const { tests } = await svc.list({ org, orgUrlSlug: org });
    expect(tests).to.have.length(3);
    // Two runs (one failed, one passed), not three.
    for (const test of tests) expect(test.failureRateLast7d).to.equal(0.5);
  });
});
