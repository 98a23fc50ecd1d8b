import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { startSystem, waitForHttp, type RunningSystem } from "../../src/dev/system.js";
import { freePortBlock, git } from "@mainline/testing";
import { OtlpSpanKind, OtlpTraceReceiver, type ReceivedSpan } from "./otlp-receiver.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const repo = { host: "git.example.com", owner: "acme", name: "traced" };
const queue = { repo, targetBranch: "main" };

// The test command writes one JUnit report, so the run's results travel on to flaky-analytics.
const TEST_SCRIPT = `mkdir -p reports
cat > reports/junit.xml <<'XML'
<testsuite name="app" tests="1"><testcase classname="app" name="works" time="0.01"/></testsuite>
XML
echo ok
`;

/** One link of the chain the submit call must cause, all in its trace. */
interface Link {
  what: string;
  holds: (span: ReceivedSpan) => boolean;
}

const nats = (span: ReceivedSpan, subject: string, kind: number) =>
  span.kind === kind &&
  span.attributes["messaging.system"] === "nats" &&
  span.attributes["messaging.destination.name"] === subject;

const CHAIN: Link[] = [
  {
    what: "gateway: SERVER span of POST /v1/submitPullRequest",
    holds: (s) =>
      s.service === "gateway" && s.kind === OtlpSpanKind.SERVER && /submitPullRequest/.test(s.name),
  },
  {
    what: "queue-coordinator: gRPC SERVER span of SubmitPullRequest",
    holds: (s) =>
      s.service === "queue-coordinator" &&
      s.kind === OtlpSpanKind.SERVER &&
      /SubmitPullRequest$/.test(s.name),
  },
  {
    what: `queue-coordinator: NATS PRODUCER span on ${SUBJECTS.testRunJob}`,
    holds: (s) => s.service === "queue-coordinator" && nats(s, SUBJECTS.testRunJob, OtlpSpanKind.PRODUCER),
  },
  {
    what: `batch-runner: NATS CONSUMER span on ${SUBJECTS.testRunJob}`,
    holds: (s) => s.service === "batch-runner" && nats(s, SUBJECTS.testRunJob, OtlpSpanKind.CONSUMER),
  },
  {
    what: "batch-runner: span of building the projected branch with git",
    holds: (s) => s.service === "batch-runner" && s.name === "build projected branch",
  },
  {
    what: "batch-runner: span of running the test command",
    holds: (s) =>
      s.service === "batch-runner" &&
      s.name === "run tests" &&
      s.attributes["mainline.test_run.outcome"] === "PASSED",
  },
  {
    what: `batch-runner: NATS PRODUCER span on ${SUBJECTS.testResults}`,
    holds: (s) => s.service === "batch-runner" && nats(s, SUBJECTS.testResults, OtlpSpanKind.PRODUCER),
  },
  {
    what: `flaky-analytics: NATS CONSUMER span on ${SUBJECTS.testResults}`,
    holds: (s) => s.service === "flaky-analytics" && nats(s, SUBJECTS.testResults, OtlpSpanKind.CONSUMER),
  },
];

/**
 * Issue 10: one REST call that causes a test run is followed by one trace through every process. The services
 * run as separate processes (as under `make dev`), each with its own NodeSDK exporting OTLP/HTTP to a receiver
 * in this test, so a shared trace id proves the context crossed gRPC and NATS, not a shared in-process provider.
 */
describe("OpenTelemetry end to end: one submit call, one trace across every service", function () {
  this.timeout(120_000);
  let dir: string;
  let remote: string;
  let receiver: OtlpTraceReceiver;
  let system: RunningSystem | undefined;
  const output: string[] = [];

  const post = async (route: string, body: unknown) => {
    const response = await fetch(`${system!.apiUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": system!.apiToken },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).to.equal(200);
    return response;
  };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-trace-"));
    remote = path.join(dir, "remote.git");
    const work = path.join(dir, "work");
    git(dir, "init", "--bare", "--initial-branch=main", remote);
    git(dir, "clone", "-q", remote, work);
    git(work, "checkout", "-q", "-b", "main");
    await writeFile(path.join(work, "test.sh"), TEST_SCRIPT);
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "initial");
    git(work, "push", "-q", "origin", "main");
    git(work, "checkout", "-q", "-b", "feature-1");
    await writeFile(path.join(work, "feature.txt"), "a change\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "Change 1");
    git(work, "push", "-q", "origin", "HEAD:refs/heads/feature-1", "HEAD:refs/pull/1/head");

    receiver = await OtlpTraceReceiver.start();
    const base = await freePortBlock(8);
    system = await startSystem({
      root,
      dataDir: path.join(dir, "data"),
      batchRunnerWorkDir: path.join(dir, "batch-runner"),
      gatewayPort: base,
      natsPort: base + 1,
      grpcBasePort: base + 1,
      env: {
        LOG_LEVEL: "warn",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        // Spans leave each process within 100 ms instead of the default 5 s.
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
      output: (line) => output.push(line),
      log: (line) => output.push(line),
    });
    const ready = await waitForHttp(`${system.apiUrl}/readyz`, 90_000);
    expect(ready, `every service ready; output:\n${output.slice(-40).join("\n")}`).to.equal(true);
  });

  after(async () => {
    await system?.stop();
    await receiver?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("puts the spans of gateway, coordinator, NATS publish and consume, batch-runner and flaky-analytics in the submit call's trace", async () => {
    await post("/createQueue", queue);
    await post("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh", junitGlobs: ["reports/*.xml"] },
    });
    await post("/code-host/pull-request-events", {
      action: "opened",
      number: 1,
      pull_request: {
        title: "Change 1",
        state: "open",
        user: { login: "dev" },
        head: { ref: "feature-1", sha: git(remote, "rev-parse", "refs/pull/1/head") },
        base: { ref: "main" },
      },
      repository: {
        name: repo.name,
        owner: { login: repo.owner },
        html_url: `https://${repo.host}/acme/traced`,
      },
    });

    // The call under test sends no traceparent: the gateway starts the trace and names it in `traceresponse`.
    const submitted = await post("/submitPullRequest", { ...queue, pr: { number: 1 } });
    const traceresponse = submitted.headers.get("traceresponse") ?? "";
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(traceresponse);
    expect(match, `traceresponse header: "${traceresponse}"`).to.not.equal(null);
    const traceId = match![1]!;

    const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.traceId === traceId);
    const missing = (spans: readonly ReceivedSpan[]) =>
      CHAIN.filter((link) => !inTrace(spans).some(link.holds)).map((link) => link.what);
    const complete = await receiver.waitFor((spans) => missing(spans).length === 0, 60_000);
    if (!complete) {
      const seen = inTrace(receiver.spans).map((s) => `${s.service}: ${s.name}`);
      expect.fail(
        `spans missing from trace ${traceId}:\n  ${missing(receiver.spans).join("\n  ")}\n` +
          `seen in that trace:\n  ${seen.join("\n  ") || "(none)"}\n` +
          `services that exported anything: ${[...new Set(receiver.spans.map((s) => s.service))].join(", ")}`,
      );
    }

    // Every cross-process hop is a parent-child edge, not merely the same trace id; within a process the
    // spans nest under the one that received the work.
    const spans = inTrace(receiver.spans);
    const [gateway, coordinator, jobPublish, jobConsume, build, run, resultsPublish, resultsConsume] =
      CHAIN.map((link) => spans.find(link.holds)!);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const descendsFrom = (span: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
      let at: ReceivedSpan | undefined = span;
      while (at && at.spanId !== ancestor.spanId) at = byId.get(at.parentSpanId);
      return at !== undefined;
    };
    expect(gateway!.spanId, "the gateway span is the one traceresponse names").to.equal(match![2]);
    expect(gateway!.parentSpanId, "the gateway started the trace").to.equal("");
    expect(coordinator!.parentSpanId, "coordinator <- gateway over gRPC").to.equal(gateway!.spanId);
    expect(descendsFrom(jobPublish!, coordinator!), "job published within the submit call").to.equal(true);
    expect(jobConsume!.parentSpanId, "batch-runner <- coordinator over NATS").to.equal(jobPublish!.spanId);
    for (const step of [build!, run!, resultsPublish!])
      expect(descendsFrom(step, jobConsume!), `${step.name} within the job's handling`).to.equal(true);
    expect(resultsConsume!.parentSpanId, "flaky-analytics <- batch-runner over NATS").to.equal(
      resultsPublish!.spanId,
    );
    expect(jobPublish!.attributes["messaging.message.id"]).to.match(/^job-/);
  });
});
