import { expect } from "chai";
import { readFileSync } from "node:fs";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { FlakyServiceProcess } from "./flaky-service-process.js";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const fixture = (name: string) =>
  readFileSync(new URL(`../../../../junit/test/fixtures/junit/${name}`, import.meta.url), "utf8");
const corpus = (name: string) =>
  readFileSync(new URL(`../../../../junit/test/fixtures/junit-corpus/${name}`, import.meta.url), "utf8");
// Recent, so the status judged at read time is still within its quiet window.
const RUN_AT = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000).toISOString();
const window = {
  start_time: new Date(Date.parse(RUN_AT) - 12 * 3_600_000).toISOString(),
  end_time: new Date(Date.parse(RUN_AT) + 12 * 3_600_000).toISOString(),
};

describe("gateway: flaky-test endpoints against the real flaky-analytics service", () => {
  let flaky: FlakyServiceProcess;
  let gw: GatewayHarness;
  let acme: string;
  let globex: string;

  before(async function () {
    this.timeout(30_000);
    flaky = await FlakyServiceProcess.start({ MAINLINE_PUBLIC_URL: "https://mainline.acme.test" });
    gw = await GatewayHarness.start({ flaky: flaky.address });
    acme = await gw.organization("acme");
    globex = await gw.organization("globex");
  });
  after(async () => {
    await gw.stop();
    await flaky.stop();
  });

  const upload = (token: string, junit: string[], extra: object = {}) =>
    gw.post(
      "/flaky-tests/upload",
      { repo, commit_sha: "a".repeat(40), branch: "main", run_started_at: RUN_AT, junit, ...extra },
      token,
    );
  const list = (token: string, body: object = {}) =>
    gw.post(
      "/flaky-tests/list-failing-tests",
      { repo, org_url_slug: "acme", ...window, page_query: { page_size: 10 }, ...body },
      token,
    );

  it("uploads JUnit XML and lists the failing tests in the spec's shape", async () => {
    const uploaded = await upload(
      acme,
      [fixture("gradle-test-retry-unmerged.xml"), fixture("jest-junit.xml")],
      {
        pr_number: 9,
        job_name: "unit",
      },
    );
    expect(uploaded.status, await uploaded.clone().text()).to.equal(200);
    const summary = (await uploaded.json()) as Record<string, unknown>;
    expect(summary).to.include({ files: 2 });
    expect(summary["upload_id"]).to.be.a("string");

    const response = await list(acme);
    expect(response.status).to.equal(200);
    const body = (await response.json()) as {
      tests: Record<string, unknown>[];
      page: Record<string, unknown>;
    };
    const flakyTest = body.tests.find((t) => t["name"] === "settlesBatch()");
    expect(flakyTest).to.include({
      variant: "",
      classname: "com.acme.ledger.SettlementTest",
      quarantined: false,
    });
    expect(flakyTest?.["status"]).to.deep.include({ value: "flaky", timestamp: RUN_AT });
    expect(flakyTest?.["repository"]).to.deep.equal({ html_url: "https://github.com/acme/widgets" });
    expect(String(flakyTest?.["html_url"])).to.match(/^https:\/\/mainline\.acme\.test\/flaky-tests\/acme\//);
    for (const field of ["failure_rate_last_7d", "failure_rate_last_24h", "pull_requests_impacted_last_7d"]) {
      expect(flakyTest?.[field]).to.be.a("number");
    }
    expect(flakyTest?.["most_common_failures"]).to.be.an("array").that.is.not.empty;
    expect(body.page).to.have.all.keys(
      "total_rows",
      "total_pages",
      "next_page_token",
      "prev_page_token",
      "last_page_token",
      "page_index",
    );
  });

  it("never lets organisation B read organisation A's tests", async () => {
    // globex's own listing of the same repository is empty...
    const own = await list(globex, { org_url_slug: "globex" });
    expect(own.status).to.equal(200);
    expect(((await own.json()) as { tests: unknown[] }).tests).to.deep.equal([]);
    // ...and naming acme's slug with globex's token is refused.
    const intruding = await list(globex, { org_url_slug: "acme" });
    expect(intruding.status).to.equal(401);
    expect(await intruding.text()).to.match(/^Unauthorized/);
    // A page token issued to acme is worthless to globex.
    const acmePage = (await (await list(acme, { page_query: { page_size: 1 } })).json()) as {
      page: { next_page_token: string };
    };
    expect(acmePage.page.next_page_token).to.not.equal("");
    const replay = await list(globex, {
      org_url_slug: "globex",
      page_query: { page_size: 1, page_token: acmePage.page.next_page_token },
    });
    expect(replay.status).to.equal(400);
    expect(await replay.text()).to.match(/^page_query\.page_token:/);
  });

  it("answers 401 without a token and 400s naming the field", async () => {
    expect((await gw.post("/flaky-tests/list-failing-tests", { repo })).status).to.equal(401);
    const cases: [object, RegExp][] = [
      [{ page_query: { page_size: 0 } }, /^page_query\.page_size: must be an integer from 1 to 100/],
      [{ page_query: { page_size: 101 } }, /^page_query\.page_size:/],
      [{ page_query: {} }, /^page_query\.page_size: is required/],
      [{ start_time: "yesterday" }, /^start_time: must be an RFC 3339 date-time/],
      [
        { end_time: new Date(Date.parse(window.start_time) + 8 * 86_400_000).toISOString() },
        /^end_time: must be within 7 days of start_time/,
      ],
      [{ repo: { host: "github.com", owner: "acme" } }, /^repo\.name: is required/],
      [{ org_url_slug: undefined }, /^org_url_slug: is required/],
    ];
    for (const [body, message] of cases) {
      const response = await list(acme, body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(await response.text()).to.match(message);
    }
  });

  it("refuses malformed XML with a 400 naming the file and line, storing nothing", async () => {
    const response = await upload(globex, [fixture("pytest-xunit1.xml"), "<testsuite><testcase name='x'>"]);
    expect(response.status).to.equal(400);
    expect(await response.text()).to.match(
      /^junit\[1\]: malformed XML at line 1, column 31: the document ends/,
    );
    const listing = (await (await list(globex, { org_url_slug: "globex" })).json()) as { tests: unknown[] };
    expect(listing.tests).to.deep.equal([]);
    const notArray = await gw.post(
      "/flaky-tests/upload",
      { repo, commit_sha: "abc1", branch: "main", junit: "<x/>" },
      globex,
    );
    expect(notArray.status).to.equal(400);
    expect(await notArray.text()).to.match(/^junit: must be an array/);
  });

  it("answers an upload whose parse error would split a character, and keeps serving", async () => {
    // The parser's message quotes the text where it stopped; cut inside the emoji it carried a lone surrogate
    // into the gRPC status, which grpc-js could not encode: the service died and every flaky call answered 503.
    const response = await upload(acme, ["🚀"]);
    expect(response.status).to.equal(400);
    expect(await response.text()).to.equal(
      "junit[0]: malformed XML at line 1, column 1: char '🚀' is not expected.",
    );
    expect((await list(acme)).status).to.equal(200);
    expect((await upload(acme, [fixture("jest-junit.xml")])).status).to.equal(200);
  });

  it('keeps a real jest report whose passing test has name="", with its 2 failures', async () => {
    const response = await upload(globex, [corpus("jest-junit-jest-repo-large.xml")]);
    expect(response.status).to.equal(200);
    // 4,239 test cases: same-named cases of one file are one test with several executions.
    expect(await response.json()).to.deep.include({
      results: 4142,
      failed: 2,
      ignored: 0,
      ignored_testcases: [],
    });
  });

  it("keeps the rest of an upload when a test case cannot be read, and says which and why", async () => {
    const response = await upload(globex, [
      fixture("jest-junit.xml"),
      corpus("junit-report-builder-expected.xml"),
    ]);
    expect(response.status).to.equal(200);
    const body = (await response.json()) as {
      results: number;
      ignored: number;
      ignored_testcases: unknown[];
    };
    expect(body.ignored).to.equal(4);
    expect(body.ignored_testcases[0]).to.deep.equal({
      field: "junit[1]",
      suite: "second.Suite",
      classname: "",
      reason: "the <testcase> has no name attribute",
    });
    expect(body.results).to.be.greaterThan(2);
  });

  it("names the field and the line where a truncated report breaks", async () => {
    const response = await upload(globex, [
      fixture("jest-junit.xml"),
      corpus("pytest-corrupt-truncated.xml"),
    ]);
    expect(response.status).to.equal(400);
    expect(await response.text()).to.match(
      /^junit\[1\]: malformed XML at line 11, column 22: the document ends/,
    );
  });

  it("turns quarantining on, overrides a test and serves the quarantine config", async () => {
    const listing = (await (await list(acme)).json()) as { tests: { id: string; name: string }[] };
    const flakyId = listing.tests.find((t) => t.name === "settlesBatch()")!.id;
    const before = await gw.post("/flaky-tests/get-quarantine-config", { repo }, acme);
    expect(await before.json()).to.deep.equal({ isDisabled: true, testIds: [] });

    const settings = await gw.post(
      "/flaky-tests/update-repository-settings",
      { repo, quarantining_enabled: true, auto_quarantine_enabled: true },
      acme,
    );
    expect(await settings.json()).to.deep.include({
      quarantining_enabled: true,
      auto_quarantine_enabled: true,
    });
    const config = (await (await gw.post("/flaky-tests/get-quarantine-config", { repo }, acme)).json()) as {
      testIds: string[];
    };
    expect(config.testIds).to.include(flakyId);

    const never = await gw.post(
      "/flaky-tests/set-quarantine-override",
      { repo, test_id: flakyId, override: "never_quarantine" },
      acme,
    );
    expect(never.status).to.equal(200);
    // The test's page reads the override back, so it can show it before anyone changes it.
    const overrideOnPage = async () =>
      (
        (await (await gw.post("/flaky-tests/get-test", { repo, test_id: flakyId }, acme)).json()) as {
          test: { quarantine_override: string };
        }
      ).test.quarantine_override;
    expect(await overrideOnPage()).to.equal("NEVER_QUARANTINE");
    const listed = (await (await list(acme)).json()) as {
      tests: { id: string; quarantine_override: string }[];
    };
    expect(listed.tests.find((t) => t.id === flakyId)?.quarantine_override).to.equal("NEVER_QUARANTINE");
    const after = (await (await gw.post("/flaky-tests/get-quarantine-config", { repo }, acme)).json()) as {
      testIds: string[];
    };
    expect(after.testIds).to.not.include(flakyId);
    // Another organisation cannot touch acme's test.
    const foreign = await gw.post(
      "/flaky-tests/set-quarantine-override",
      { repo, test_id: flakyId, override: null },
      globex,
    );
    expect(foreign.status).to.equal(404);
    const cleared = await gw.post(
      "/flaky-tests/set-quarantine-override",
      { repo, test_id: flakyId, override: null },
      acme,
    );
    expect(cleared.status).to.equal(200);
    expect(await overrideOnPage()).to.equal("NONE");
    const badSetting = await gw.post("/flaky-tests/update-repository-settings", { repo, min_runs: 0 }, acme);
    expect(badSetting.status).to.equal(400);
    expect(await badSetting.text()).to.match(/^min_runs: must be at least 1/);
  });

  it("links tickets and resolves code owners", async () => {
    const listing = (await (await list(acme)).json()) as { tests: { id: string; file_path?: string }[] };
    const jest = listing.tests.find((t) => t.file_path === "src/parser.test.js")!;
    const owners = await gw.post("/flaky-tests/set-codeowners", { repo, content: "src/ @acme/core\n" }, acme);
    expect(await owners.json()).to.deep.equal({ rules: 1, problems: [] });
    const ticket = await gw.post(
      "/flaky-tests/link-ticket",
      { repo, test_id: jest.id, url: "https://linear.app/acme/issue/WID-7" },
      acme,
    );
    expect(ticket.status).to.equal(200);
    const again = (await (await list(acme)).json()) as { tests: Record<string, unknown>[] };
    const listed = again.tests.find((t) => t["id"] === jest.id);
    expect(listed?.["codeowners"]).to.deep.equal(["@acme/core"]);
    expect(listed?.["ticket"]).to.deep.equal({ html_url: "https://linear.app/acme/issue/WID-7" });
  });

  it("gives one test's page its latest runs, failure summaries and ticket, and no one else's test", async () => {
    const listing = (await (await list(acme)).json()) as { tests: { id: string; file_path?: string }[] };
    const jest = listing.tests.find((t) => t.file_path === "src/parser.test.js")!;
    // A later run on a PR branch from the merge queue, after the run on main of the first test.
    const later = new Date(Date.parse(RUN_AT) + 60_000).toISOString();
    const again = await upload(acme, [fixture("jest-junit.xml")], {
      branch: "feature/x",
      commit_sha: "b".repeat(40),
      run_started_at: later,
      pr_number: 12,
      context: "MERGE_QUEUE",
    });
    expect(again.status, await again.clone().text()).to.equal(200);
    const response = await gw.post("/flaky-tests/get-test", { repo, test_id: jest.id }, acme);
    expect(response.status, await response.clone().text()).to.equal(200);
    const body = (await response.json()) as {
      test: Record<string, unknown> & { most_common_failures: { occurrence_count: number }[] };
      recent_runs: Record<string, unknown>[];
    };
    expect(body.test).to.include({ id: jest.id, file_path: "src/parser.test.js" });
    expect(body.test["ticket"]).to.deep.equal({ html_url: "https://linear.app/acme/issue/WID-7" });
    // Its earlier failures (the tests above uploaded it too) and this one, counted per distinct message.
    expect(body.test.most_common_failures[0]?.occurrence_count).to.be.at.least(2);
    const runs = body.recent_runs.map((r) => [
      r["at"],
      r["outcome"],
      r["context"],
      r["branch"],
      r["pr_number"],
    ]);
    // Newest first: this run, then the first upload's run on main (from PR 9's job).
    expect(runs[0]).to.deep.equal([later, "failed", "MERGE_QUEUE", "feature/x", 12]);
    expect(runs.at(-1)).to.deep.equal([RUN_AT, "failed", "CI", "main", 9]);
    expect(body.recent_runs[0]?.["commit_sha"]).to.equal("b".repeat(40));

    expect((await gw.post("/flaky-tests/get-test", { repo, test_id: jest.id }, globex)).status).to.equal(404);
    const bad = await gw.post("/flaky-tests/get-test", { repo, test_id: "not-a-test" }, acme);
    expect(bad.status).to.equal(400);
    expect(await bad.text()).to.match(/test_id/);
    const unknown = await gw.post(
      "/flaky-tests/get-test",
      { repo, test_id: "00000000-0000-5000-8000-000000000000" },
      acme,
    );
    expect(unknown.status).to.equal(404);
  });

  it("lists the organisation's repositories with test results, and no other organisation's", async () => {
    const repositories = async (token: string) => {
      const response = await gw.post("/flaky-tests/list-repositories", {}, token);
      expect(response.status, await response.clone().text()).to.equal(200);
      return ((await response.json()) as { repositories: unknown[] }).repositories;
    };
    const initech = await gw.organization("initech");
    expect(await repositories(acme)).to.deep.equal([repo]);
    expect(await repositories(initech)).to.deep.equal([]);
    // Sorted; an owner with slashes (nested groups) and a name's case survive the round trip.
    const other = { host: "gitlab.example", owner: "initech/platform", name: "Ledger" };
    expect((await upload(initech, [fixture("jest-junit.xml")], { repo: other })).status).to.equal(200);
    expect((await upload(initech, [fixture("jest-junit.xml")])).status).to.equal(200);
    expect(await repositories(initech)).to.deep.equal([repo, other]);
    expect(await repositories(acme)).to.deep.equal([repo]);
    const bad = await gw.post("/flaky-tests/list-repositories", { org: "globex" }, acme);
    expect(bad.status).to.equal(400);
    expect(await bad.text()).to.contain("org");
  });

  it("documents the endpoints in the OpenAPI document", async () => {
    const doc = (await (await gw.fetch(`${gw.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(doc.paths).to.include.keys(
      "/flaky-tests/list-failing-tests",
      "/flaky-tests/upload",
      "/flaky-tests/get-quarantine-config",
    );
  });
});
