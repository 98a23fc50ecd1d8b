import { expect } from "chai";
import { callUnary, createGrpcClient, RemoteCallError } from "@mainline/kit/grpc/index";
import { TestStatus } from "@mainline/proto/flaky";
import { MetricsClient } from "@mainline/proto/metrics";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { FAMILIES } from "../src/domain/catalogue.js";
import { EXPOSITION_PARSER, histogramOf, samplesOf, valueOf, type Exposition } from "./support/exposition.js";
import { MetricsSystem } from "./support/metrics-system.js";
import { QueueDriver } from "./support/queue-driver.js";

const github = (owner: string, name: string) => ({ host: "github.com", owner, name });
const widgets = { repo: "acme/widgets", branch: "main", queue_type: "main" };

describe(`GET /v1/getMergeQueueMetrics through the gateway (exposition checked by ${EXPOSITION_PARSER})`, function () {
  this.timeout(60_000);
  let system: MetricsSystem;
  let acme: string;
  let rival: string;
  let scrape: Exposition;

  before(async () => {
    system = await MetricsSystem.start();
    acme = await system.gateway.organization("acme");
    rival = await system.gateway.organization("rival");
    const q = new QueueDriver(system, acme, github("acme", "widgets"));
    const clock = system.clock;
    await q.create();

    // PR 1: ready at once, tested for 10 minutes, merged.
    await q.open(1);
    await q.submit(1);
    await q.waitFor(1, "TESTING");
    clock.advance(10);
    await q.report(1, true);
    await q.waitFor(1, "MERGED");

    // PR 2: tested for 20 minutes, failed.
    await q.open(2);
    await q.submit(2);
    await q.waitFor(2, "TESTING");
    clock.advance(20);
    await q.report(2, false);
    await q.waitFor(2, "FAILED");

    // PR 3: 5 minutes awaiting mergeability (not time in queue), tested, restarted, cancelled 10 minutes after
    // it became ready. PR 4 waits behind it from the restart on.
    await q.submit(3);
    await q.waitFor(3, "NOT_READY");
    clock.advance(5);
    await q.open(3);
    await q.waitFor(3, "TESTING");
    clock.advance(5);
    await q.restart(3);
    await q.open(4);
    await q.submit(4);
    await q.waitFor(4, "PENDING");
    clock.advance(5);
    await q.cancel(3);
    await q.waitFor(4, "TESTING");

    // PR 5 still awaits mergeability.
    await q.submit(5);

    // A batch of two fails; the bisection tests 10 alone, which passes, then 11 on top of 10, which fails.
    const batched = new QueueDriver(system, acme, github("acme", "batched"));
    await batched.create();
    await system.call(
      "/updateQueue",
      { repo: batched.repo, targetBranch: "main", batch: true, batchingMinSize: 2 },
      acme,
    );
    for (const pr of [10, 11]) {
      await batched.open(pr);
      await batched.submit(pr);
    }
    await batched.waitFor(11, "TESTING");
    await batched.report(10, false);
    await batched.waitFor(10, "PENDING_FAILURE");
    await batched.report(10, true);
    // The batch's own failure could have been a flake, so 11 is confirmed by a run of its own before it fails.
    await batched.report(11, false);
    await batched.waitFor(11, "FAILED");
    await batched.waitFor(10, "MERGED");

    // flaky-analytics' judgements: t3 recovers; rival's test is not acme's business.
    const widgetsRepo = github("acme", "widgets");
    await system.publishTestStatus("acme", widgetsRepo, "t1", TestStatus.FLAKY);
    await system.publishTestStatus("acme", widgetsRepo, "t2", TestStatus.BROKEN);
    await system.publishTestStatus("acme", widgetsRepo, "t3", TestStatus.FLAKY);
    await system.publishTestStatus("acme", widgetsRepo, "t3", TestStatus.HEALTHY);
    await system.publishTestStatus("rival", github("rival", "app"), "t9", TestStatus.BROKEN);

    // Another repository of acme, and another organisation.
    const gadgets = new QueueDriver(system, acme, github("acme", "gadgets"), "release");
    await gadgets.create();
    await gadgets.submit(7);
    const other = new QueueDriver(system, rival, github("rival", "app"));
    await other.create();
    await other.open(9);
    await other.submit(9);
    await other.waitFor(9, "TESTING");

    scrape = await system.scrape(acme);
  });
  after(async () => {
    await system?.stop();
  });

  it("answers in the spec's content type", async () => {
    const response = await system.scrapeRaw(acme);
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.equal("text/plain; version=0.0.4; charset=utf-8");
  });

  it(`is valid Prometheus text with HELP and TYPE for every family (${EXPOSITION_PARSER})`, () => {
    for (const definition of Object.values(FAMILIES)) {
      const family = scrape.families.find((f) => f.name === definition.name);
      expect(family, definition.name).to.not.equal(undefined);
      expect(family?.help, definition.name).to.not.equal("");
      expect(family?.type, definition.name).to.equal(definition.type.toUpperCase());
    }
  });

  it("reports the gauges: depth, awaiting mergeability, testing slots", () => {
    expect(valueOf(scrape, "mq_depth_current", widgets)).to.equal(1);
    expect(valueOf(scrape, "mq_awaiting_mergeability", widgets)).to.equal(1);
    expect(valueOf(scrape, "mq_testing_slots_active", widgets)).to.equal(1);
    expect(valueOf(scrape, "mq_testing_slots_active", { ...widgets, queue_type: "bisection" })).to.equal(0);
  });

  it("counts the last hour's conclusions and restarts", () => {
    for (const [conclusion, count] of [
      ["merged", 1],
      ["failed", 1],
      ["cancelled", 1],
    ] as const) {
      expect(valueOf(scrape, "mq_pr_conclusions_1h_total", { ...widgets, conclusion }), conclusion).to.equal(
        count,
      );
    }
    expect(valueOf(scrape, "mq_pr_restarts_1h_total", widgets)).to.equal(1);
  });

  it("measures test duration, time in queue (NOT_READY excluded) and wait in the catalogue's buckets", () => {
    const tested = histogramOf(scrape, "mq_pr_test_duration_1h_seconds", widgets);
    expect(tested).to.deep.equal({
      buckets: {
        "60": 0,
        "300": 0,
        "600": 1,
        "900": 1,
        "1800": 2,
        "3600": 2,
        "5400": 2,
        "7200": 2,
        "+Inf": 2,
      },
      count: 2,
      sum: 600 + 1200,
    });
    const inQueue = histogramOf(scrape, "mq_pr_time_in_queue_1h_seconds", widgets);
    expect(inQueue.count).to.equal(3);
    expect(inQueue.sum).to.equal(600 + 1200 + 600);
    const waited = histogramOf(scrape, "mq_pr_wait_duration_1h_seconds", widgets);
    // PR 1, 2, 3 (twice: it is tested again after its restart) start at once; PR 4 waits 5 minutes.
    expect(waited.count).to.equal(5);
    expect(waited.sum).to.equal(300);
    expect(waited.buckets["60"]).to.equal(4);
  });

  it("reports our own: runs started and finished by outcome, run durations, batch sizes, runs per merged PR", () => {
    expect(valueOf(scrape, "mq_test_runs_started_1h", widgets)).to.equal(5);
    const finished = (outcome: string) =>
      valueOf(scrape, "mq_test_runs_finished_1h", { ...widgets, outcome });
    expect([finished("passed"), finished("failed"), finished("cancelled")]).to.deep.equal([1, 1, 2]);
    const durations = histogramOf(scrape, "mq_test_run_duration_1h_seconds", widgets);
    expect([durations.count, durations.sum]).to.deep.equal([2, 1800]);
    const batches = histogramOf(scrape, "mq_batch_size_1h", widgets);
    expect([batches.count, batches.sum, batches.buckets["1"]]).to.deep.equal([5, 5, 5]);
    expect(valueOf(scrape, "mq_ci_runs_per_merged_pr_1h", widgets)).to.equal(5);
    expect(
      valueOf(scrape, "mq_bisection_results_reused_1h", { ...widgets, queue_type: "bisection" }),
    ).to.equal(0);
  });

  it("reports a bisection: its runs and the culprit it found", () => {
    const batched = { repo: "acme/batched", branch: "main" };
    const bisection = { ...batched, queue_type: "bisection" };
    expect(valueOf(scrape, "mq_test_runs_started_1h", { ...batched, queue_type: "main" })).to.equal(1);
    // 10 alone passes; 11 is then confirmed by a run of its own rather than blamed from the batch's result.
    expect(valueOf(scrape, "mq_test_runs_started_1h", bisection)).to.equal(2);
    expect(valueOf(scrape, "mq_test_runs_finished_1h", { ...bisection, outcome: "failed" })).to.equal(1);
    expect(valueOf(scrape, "mq_pr_conclusions_1h_total", { ...bisection, conclusion: "failed" })).to.equal(1);
    expect(
      valueOf(scrape, "mq_pr_conclusions_1h_total", { ...batched, queue_type: "main", conclusion: "merged" }),
    ).to.equal(1);
    const batches = histogramOf(scrape, "mq_batch_size_1h", { ...batched, queue_type: "main" });
    expect([batches.count, batches.sum, batches.buckets["1"], batches.buckets["2"]]).to.deep.equal([
      1, 2, 0, 1,
    ]);
    expect(valueOf(scrape, "mq_test_runs_finished_1h", { ...bisection, outcome: "passed" })).to.equal(1);
  });

  it("counts the flaky and broken tests per repository", () => {
    expect(valueOf(scrape, "mq_tests_current", { repo: "acme/widgets", status: "flaky" })).to.equal(1);
    expect(valueOf(scrape, "mq_tests_current", { repo: "acme/widgets", status: "broken" })).to.equal(1);
    expect(valueOf(scrape, "mq_tests_current", { repo: "acme/gadgets", status: "broken" })).to.equal(0);
  });

  it("covers every repository of the organisation, and never another organisation's", () => {
    const repos = new Set(scrape.samples.map((s) => s.labels.repo));
    expect([...repos].sort()).to.deep.equal(["acme/batched", "acme/gadgets", "acme/widgets"]);
    expect(valueOf(scrape, "mq_awaiting_mergeability", { repo: "acme/gadgets", branch: "release" })).to.equal(
      1,
    );
  });

  it("shows another organisation only its own series", async () => {
    const theirs = await system.scrape(rival);
    expect([...new Set(theirs.samples.map((s) => s.labels.repo))]).to.deep.equal(["rival/app"]);
    expect(valueOf(theirs, "mq_testing_slots_active", { repo: "rival/app", queue_type: "main" })).to.equal(1);
    expect(valueOf(theirs, "mq_tests_current", { repo: "rival/app", status: "broken" })).to.equal(1);
    const peeking = await system.scrape(rival, "?repo=acme/widgets&repoHost=github.com");
    expect(peeking.samples).to.deep.equal([]);
  });

  it("filters to one repository with repo and repoHost", async () => {
    const one = await system.scrape(acme, "?repo=acme/gadgets&repoHost=github.com");
    expect([...new Set(one.samples.map((s) => s.labels.repo))]).to.deep.equal(["acme/gadgets"]);
    const otherHost = await system.scrape(acme, "?repo=acme/widgets&repoHost=gitlab.example.com");
    expect(otherHost.samples).to.deep.equal([]);
    expect(samplesOf(one, "mq_depth_current").length).to.equal(1);
  });

  it("finds the repository however its owner, name and host are cased, as the code host and the queue do", async () => {
    const one = await system.scrape(acme, "?repo=ACME/Gadgets&repoHost=GitHub.com");
    expect([...new Set(one.samples.map((s) => s.labels.repo))]).to.deep.equal(["acme/gadgets"]);
    expect(samplesOf(one, "mq_depth_current").length).to.equal(1);
  });

  for (const [query, message] of [
    ["?repo=acme/widgets", "repoHost: is required when repo is given"],
    ["?repoHost=github.com", "repo: is required when repoHost is given"],
    ["?repo=widgets&repoHost=github.com", "repo: must be in owner/name form"],
  ] as const) {
    it(`answers 400 naming the field and rule for ${query}`, async () => {
      const response = await system.scrapeRaw(acme, query);
      expect(response.status).to.equal(400);
      expect(await response.text()).to.contain(message);
    });
  }

  it("refuses a gRPC call without org, or with a repo missing a part, naming the field", async () => {
    const client = createGrpcClient(MetricsClient, system.metricsAddress);
    try {
      for (const [request, message] of [
        [{ org: "" }, "org: is required"],
        [{ org: "acme", repo: { host: "", owner: "acme", name: "widgets" } }, "repo.host: must not be empty"],
        [
          { org: "acme", repo: { host: "github.com", owner: "acme", name: "" } },
          "repo.name: must not be empty",
        ],
      ] as const) {
        const error = await callUnary(client.getMergeQueueMetrics.bind(client), request).catch(
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(RemoteCallError);
        expect((error as RemoteCallError).code).to.equal("INVALID_ARGUMENT");
        expect((error as Error).message).to.contain(message);
      }
    } finally {
      client.close();
    }
  });

  it("is fed by the coordinator's ListQueues for every organisation, a form that takes no org", async () => {
    const client = createGrpcClient(QueueCoordinatorClient, system.coordinator.address);
    try {
      const list = client.listQueues.bind(client);
      const { queues } = await callUnary(list, { org: "", allOrganizations: true });
      const names = queues.map((q) => `${q.ref?.org}:${q.ref?.repo?.owner}/${q.ref?.repo?.name}`).sort();
      expect(names).to.deep.equal([
        "acme:acme/batched",
        "acme:acme/gadgets",
        "acme:acme/widgets",
        "rival:rival/app",
      ]);
      const error = await callUnary(list, { org: "acme", allOrganizations: true }).catch((e: unknown) => e);
      expect((error as RemoteCallError).code).to.equal("INVALID_ARGUMENT");
      expect((error as Error).message).to.contain("org: must be empty when allOrganizations is set");
    } finally {
      client.close();
    }
  });

  it("answers 401 without a token", async () => {
    expect((await system.scrapeRaw(undefined)).status).to.equal(401);
  });
});
