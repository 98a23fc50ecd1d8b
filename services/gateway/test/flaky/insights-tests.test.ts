import { expect } from "chai";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { FlakyServiceProcess } from "./flaky-service-process.js";

const repository = { host: "github.com", owner: "acme", name: "insights" };
const DAY = 86_400_000;
const HOUR = 3_600_000;
// Uploads are dated by run_started_at: days ago at noon UTC, so each lands in a known day bucket.
const TODAY = Math.floor(Date.now() / DAY) * DAY;
const noonDaysAgo = (days: number) => new Date(TODAY - days * DAY + 12 * HOUR).toISOString();
// Today's upload: between midnight and now, so it is in today's bucket and in the past at any time of day.
const EARLIER_TODAY = TODAY + Math.floor((Date.now() - TODAY) / 2);

/** A JUnit report: per case its attempts (Gradle writes one <testcase> per attempt) and its time. */
function junit(cases: { name: string; attempts: ("pass" | "fail")[]; seconds?: number }[]): string {
  const body = cases
    .flatMap(({ name, attempts, seconds = 1 }) =>
      attempts.map((a) =>
        a === "pass"
          ? `<testcase classname="acme.Suite" name="${name}" time="${seconds}"/>`
          : `<testcase classname="acme.Suite" name="${name}" time="${seconds}"><failure message="boom ${name}"/></testcase>`,
      ),
    )
    .join("");
  return `<?xml version="1.0"?><testsuite name="acme.Suite">${body}</testsuite>`;
}

interface Insights {
  bucket: string;
  from: string;
  buckets: { start: string; runs: number; failures: number; flaky_tests: number; broken_tests: number }[];
  costliest: {
    test_id: string;
    name: string;
    failed_queue_runs: number;
    pull_requests_impacted: number;
    retry_seconds: number;
    failures: number;
  }[];
  total_costly_tests: number;
  next_cursor?: string;
}

describe("gateway: test insights against the real flaky-analytics service", () => {
  let flaky: FlakyServiceProcess | undefined;
  let gw: GatewayHarness;
  let acme: string;
  let globex: string;

  const upload = (junitXml: string, extra: object) =>
    gw.post(
      "/flaky-tests/upload",
      { repo: repository, commit_sha: "b".repeat(40), branch: "main", junit: [junitXml], ...extra },
      acme,
    );
  const insights = (body: object, token = acme) =>
    gw.post("/insights/tests", { repository, period: "7d", bucket: "day", ...body }, token);
  const insightsOf = async (body: object): Promise<Insights> => {
    const response = await insights(body);
    expect(response.status, await response.clone().text()).to.equal(200);
    return (await response.json()) as Insights;
  };

  before(async function () {
    this.timeout(60_000);
    flaky = await FlakyServiceProcess.start({ MAINLINE_PUBLIC_URL: "https://mainline.acme.test" });
    gw = await GatewayHarness.start({ flaky: flaky.address });
    acme = await gw.organization("acme");
    globex = await gw.organization("globex");
    // Day 5 ago: CI on main, all pass. Days 3 and 1 ago: merge-queue runs of PRs 11 and 12 that "checkout" fails,
    // and a flaky retry of "sync" (failed, then passed: 4 s of its 8 s lost). Today: 120 failing tests in one run.
    const steps: [string, object][] = [
      [
        junit([
          { name: "checkout", attempts: ["pass"] },
          { name: "sync", attempts: ["pass"] },
        ]),
        { run_started_at: noonDaysAgo(5) },
      ],
      [
        junit([
          { name: "checkout", attempts: ["fail"] },
          { name: "sync", attempts: ["fail", "pass"], seconds: 4 },
        ]),
        { run_started_at: noonDaysAgo(3), context: "MERGE_QUEUE", pr_number: 11 },
      ],
      [
        junit([{ name: "checkout", attempts: ["fail"] }]),
        { run_started_at: noonDaysAgo(1), context: "MERGE_QUEUE", pr_number: 12 },
      ],
      [
        junit(
          Array.from({ length: 120 }, (_, i) => ({
            name: `bulk ${String(i).padStart(3, "0")}`,
            attempts: ["fail"],
          })),
        ),
        { run_started_at: new Date(EARLIER_TODAY).toISOString(), pr_number: 40 },
      ],
    ];
    for (const [xml, extra] of steps) {
      const response = await upload(xml, extra);
      expect(response.status, await response.clone().text()).to.equal(200);
    }
  });
  after(async () => {
    await gw?.stop();
    await flaky?.stop();
  });

  it("charts runs and failures per day over the period, from the uploads' own times", async () => {
    const body = await insightsOf({});
    expect(body.buckets).to.have.length(7);
    expect(body.from).to.equal(new Date(TODAY - 6 * DAY).toISOString());
    const day = (ago: number) => body.buckets[6 - ago];
    expect(day(5)).to.include({ runs: 2, failures: 0 });
    // A retried failure counts as a failed run, as failure rates count it.
    expect(day(3)).to.include({ runs: 2, failures: 2 });
    expect(day(1)).to.include({ runs: 1, failures: 1 });
    expect(day(0)).to.include({ runs: 120, failures: 120 });
    expect(body.buckets.map((b) => b.runs).reduce((a, b) => a + b)).to.equal(125);
    // "sync" turned flaky on day 3 (a failed attempt passed on retry) and stays flaky in its quiet window.
    expect(body.buckets.map((b) => b.flaky_tests)).to.deep.equal([0, 0, 0, 1, 1, 1, 1]);
    // By the hour over 24 hours: today's upload in its hour.
    const hourly = await insightsOf({ period: "24h", bucket: "hour" });
    expect(hourly.buckets).to.have.length(24);
    const hour = new Date(Math.floor(EARLIER_TODAY / HOUR) * HOUR).toISOString();
    expect(hourly.buckets.find((b) => b.start === hour)).to.include({ runs: 120, failures: 120 });
  });

  it("ranks the costliest tests: failed queue runs, then PRs impacted, then time lost to retries", async () => {
    const body = await insightsOf({ limit: 3 });
    expect(body.total_costly_tests).to.equal(122);
    const [first, second, third] = body.costliest;
    expect(first).to.include({
      name: "checkout",
      failed_queue_runs: 2,
      pull_requests_impacted: 2,
      failures: 2,
    });
    // "sync" failed no queue run (its retry passed) but lost 4 of its 8 seconds to the retry; its failed attempt
    // still impacted PR 11 (as the failing-test record counts it).
    expect(second).to.include({
      name: "sync",
      failed_queue_runs: 0,
      pull_requests_impacted: 1,
      retry_seconds: 4,
    });
    expect(third).to.include({ name: "bulk 000", pull_requests_impacted: 1, failures: 1 });
    // Over 24 hours the costs count the whole UTC days covering it: yesterday and today.
    const today = await insightsOf({ period: "24h", limit: 1 });
    expect(today.costliest[0]?.name).to.equal("checkout");
  });

  it("pages past 100 tests with the cursor, each test once", async () => {
    const first = await insightsOf({ limit: 100 });
    expect(first.costliest).to.have.length(100);
    expect(first.next_cursor).to.be.a("string");
    const second = await insightsOf({ limit: 100, cursor: first.next_cursor });
    expect(second.costliest).to.have.length(22);
    expect(second.next_cursor).to.equal(undefined);
    const ids = new Set([...first.costliest, ...second.costliest].map((t) => t.test_id));
    expect(ids.size).to.equal(122);
  });

  it("answers one test's failure rate over time and its pass/fail strip", async () => {
    const [checkout] = (await insightsOf({ limit: 1 })).costliest;
    const trend = async (body: object) => {
      const response = await gw.post(
        "/insights/test",
        { repository, test_id: checkout?.test_id, period: "7d", bucket: "day", ...body },
        acme,
      );
      expect(response.status, await response.clone().text()).to.equal(200);
      return (await response.json()) as {
        bucket: string;
        buckets: { start: string; runs: number; failure_rate: number }[];
        recent_runs: { outcome: string; context: string; pr_number?: number }[];
      };
    };
    const daily = await trend({});
    expect(daily.buckets.map((b) => b.failure_rate)).to.deep.equal([0, 0, 0, 1, 0, 1, 0]);
    expect(daily.recent_runs.map((r) => r.outcome)).to.deep.equal(["passed", "failed", "failed"]);
    expect(daily.recent_runs[2]).to.include({ context: "MERGE_QUEUE", pr_number: 12 });
    // A test's hours reach back 8 days: 90 days by the hour is answered by the day, and says so.
    const long = await trend({ period: "90d", bucket: "hour" });
    expect(long.bucket).to.equal("day");
    expect(long.buckets).to.have.length(90);
    expect(long.buckets.filter((b) => b.runs > 0)).to.have.length(3);
    const hourly = await trend({ period: "7d", bucket: "hour" });
    expect(hourly.bucket).to.equal("hour");
    expect(hourly.buckets).to.have.length(168);
  });

  it("is scoped to the token's organisation", async () => {
    const response = await insights({}, globex);
    expect(response.status).to.equal(200);
    const body = (await response.json()) as Insights;
    expect(body.total_costly_tests).to.equal(0);
    expect(body.buckets.every((b) => b.runs === 0)).to.equal(true);
  });

  it("answers 401 without a token, 404 for an unknown test, and 400s naming the field and the rule", async () => {
    expect((await gw.post("/insights/tests", { repository, period: "7d", bucket: "day" })).status).to.equal(
      401,
    );
    const otherPeriod = (await insightsOf({ limit: 1 })).next_cursor;
    const cases: [object, RegExp][] = [
      [{ period: "1y" }, /^period: must be one of 24h, 7d, 30d, 90d/],
      [{ period: undefined }, /^period:/],
      [{ bucket: "minute" }, /^bucket: must be one of hour, day/],
      [{ limit: 0 }, /^limit:/],
      [{ limit: 101 }, /^limit:/],
      [{ limit: 2.5 }, /^limit:/],
      [{ cursor: "x".repeat(201) }, /^cursor: must be at most 200 characters/],
      [{ cursor: "not a cursor" }, /^cursor: is not a cursor/],
      [{ cursor: otherPeriod, period: "30d" }, /^cursor: belongs to the period 7d, not 30d/],
      [{ repository: { host: "github.com", owner: "acme" } }, /^repository\.name: is required/],
      [{ repository: { ...repository, name: "x".repeat(500) } }, /^repository\.name:/],
      [{ extra: 1 }, /extra/],
    ];
    for (const [body, message] of cases) {
      const response = await insights(body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(await response.text(), JSON.stringify(body)).to.match(message);
    }
    const test = (body: object) =>
      gw.post("/insights/test", { repository, period: "7d", bucket: "day", ...body }, acme);
    const notUuid = await test({ test_id: "checkout" });
    expect(notUuid.status).to.equal(400);
    expect(await notUuid.text()).to.match(/^test_id: must be a test id/);
    const unknown = await test({ test_id: "00000000-0000-4000-8000-000000000000" });
    expect(unknown.status).to.equal(404);
  });
});
