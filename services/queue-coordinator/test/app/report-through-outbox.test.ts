import { expect } from "chai";
import { connect, type JetStreamClient, type NatsConnection } from "nats";
import { eventually, NatsServer, rejection } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { Shutdown, type ServiceRuntime } from "@mainline/kit/service/index";
import { callUnary, createGrpcClient, RemoteCallError, startGrpcServer } from "@mainline/kit/grpc/index";
import { openStore } from "@mainline/kit/store/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { ResultContext, UploadTestResultsRequest } from "@mainline/proto/flaky";
import {
  CreateQueueRequest,
  GetQueueRequest,
  GetSubmittedPullRequestRequest,
  PullRequestState,
  QueueCoordinatorClient,
  RecordPullRequestFactsRequest,
  ReportTestRunResultRequest,
  SubmitPullRequestRequest,
} from "@mainline/proto/queue";
import { startQueueCoordinator } from "../../src/main.js";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const queue = {
  org: "acme",
  repo: { host: "github.com", owner: "acme", name: "widgets" },
  targetBranch: "main",
};
const JUNIT =
  '<testsuite name="ci" tests="1"><testcase classname="ci" name="builds"><failure/></testcase></testsuite>';

/**
 * A NATS connection whose JetStream refuses to publish JUnit uploads: the coordinator process dies, as far as the
 * upload is concerned, between committing the report and publishing it. Everything else is the real bus.
 */
function refusingUploads(nc: NatsConnection): NatsConnection {
  const jetstream = (): JetStreamClient => {
    const js = nc.jetstream();
    return new Proxy(js, {
      get(target, prop) {
        if (prop === "publish") {
          return (
            subject: string,
            ...rest: Parameters<JetStreamClient["publish"]> extends [string, ...infer R] ? R : never
          ) => {
            if (subject === SUBJECTS.testResults) return Promise.reject(new Error("the process died here"));
            return target.publish(subject, ...rest);
          };
        }
        const value: unknown = Reflect.get(target, prop);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  return new Proxy(nc, {
    get(target, prop) {
      if (prop === "jetstream") return jetstream;
      const value: unknown = Reflect.get(target, prop);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The JUnit uploads stored on the jobs stream (flaky-analytics is not running, so they stay there). */
async function storedUploads(nc: NatsConnection): Promise<UploadTestResultsRequest[]> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(STREAMS.jobs.name, { subjects_filter: SUBJECTS.testResults });
  const uploads: UploadTestResultsRequest[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const message = await jsm.streams.getMessage(STREAMS.jobs.name, { seq }).catch(() => null);
    if (message?.subject === SUBJECTS.testResults)
      uploads.push(UploadTestResultsRequest.decode(message.data));
  }
  return uploads;
}

/**
 * Issue 17: an external CI's report is committed with everything it owes the bus (the queue's outbox), so a
 * coordinator that dies before publishing the JUnit upload loses nothing: the next one publishes it, and the
 * CI's retry of the report is accepted instead of refused.
 */
describe("queue-coordinator: an external CI's report goes through the outbox", function () {
  this.timeout(30_000);
  let nats: NatsServer;
  let nc: NatsConnection;
  let runtime: ServiceRuntime;
  let stopServer: () => Promise<void>;
  let restarted: CoordinatorHarness | undefined;

  before(async () => {
    nats = await NatsServer.start();
    nc = await connect(nats.connectOptions());
    const logger = createLogger("queue-coordinator-test", process.env.TEST_LOG_LEVEL ?? "silent");
    const store = await openStore({ database: "mainline-queue-coordinator", nats: nc });
    runtime = {
      name: "queue-coordinator",
      logger,
      nats: refusingUploads(nc),
      store,
      shutdown: new Shutdown(logger),
    };
  });
  after(async () => {
    await restarted?.stop();
    await nats.stop();
  });

  it("publishes the JUnit upload after a restart when the process died before publishing it, and accepts the retry", async () => {
    const { grpc } = await startQueueCoordinator(runtime, { sweepEveryMs: 100 });
    const server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [grpc] });
    server.setServing(true);
    stopServer = async () => {
      await runtime.shutdown.run();
      await server.shutdown(100);
      await runtime.store.close();
      await nc.close();
    };
    const first = createGrpcClient(QueueCoordinatorClient, `127.0.0.1:${server.port}`);
    await callUnary(first.createQueue.bind(first), CreateQueueRequest.fromPartial({ queue }));
    await callUnary(
      first.recordPullRequestFacts.bind(first),
      RecordPullRequestFactsRequest.fromPartial({
        org: "acme",
        repo: queue.repo,
        number: 1,
        headBranch: "feature-1",
        headSha: "a".repeat(40),
        title: "Change 1",
        author: "dev",
        baseBranch: "main",
      }),
    );
    await callUnary(
      first.submitPullRequest.bind(first),
      SubmitPullRequestRequest.fromPartial({ queue, prNumber: 1 }),
    );
    const { queue: q } = await callUnary(first.getQueue.bind(first), GetQueueRequest.fromPartial({ queue }));
    const testRunId = q!.activeTestRuns[0]!.testRunId;
    const report = ReportTestRunResultRequest.fromPartial({
      org: "acme",
      testRunId,
      passed: false,
      junitXml: [JUNIT],
    });

    // Accepted: the verdict is committed, though the upload could not be published.
    await callUnary(first.reportTestRunResult.bind(first), report);
    const lookup = GetSubmittedPullRequestRequest.fromPartial({ queue, pr: { $case: "number", value: 1 } });
    const { pullRequest } = await callUnary(first.getSubmittedPullRequest.bind(first), lookup);
    expect(pullRequest?.state).to.not.equal(PullRequestState.TESTING);
    expect(await storedUploads(nc), "nothing published before the crash").to.deep.equal([]);

    first.close();
    await stopServer();
    restarted = await CoordinatorHarness.startOn(nats, { sweepEveryMs: 100 });
    const [upload] = await eventually(async () => {
      const uploads = await storedUploads(restarted!.nc);
      expect(uploads).to.have.length(1);
      return uploads;
    });
    expect(upload).to.deep.include({
      org: "acme",
      uploadId: testRunId,
      prNumber: 1,
      context: ResultContext.MERGE_QUEUE,
      jobName: "mainline-merge-queue",
      junitXml: [JUNIT],
    });

    // The CI never heard the first answer and reports again: accepted, and nothing is stored twice.
    const second = createGrpcClient(QueueCoordinatorClient, restarted.address);
    await callUnary(second.reportTestRunResult.bind(second), report);
    const contrary = await rejection(
      callUnary(second.reportTestRunResult.bind(second), { ...report, passed: true }),
    );
    expect((contrary as RemoteCallError).code).to.equal("FAILED_PRECONDITION");
    expect((contrary as RemoteCallError).message).to.equal(`test run ${testRunId} is already failed`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await storedUploads(restarted.nc)).to.have.length(1);

    // A JUnit too large to travel with the queue's commit is refused up front, naming the field.
    const tooLarge = await rejection(
      callUnary(second.reportTestRunResult.bind(second), {
        ...report,
        junitXml: ["x".repeat(4 * 1024 * 1024 + 1)],
      }),
    );
    expect((tooLarge as RemoteCallError).code).to.equal("INVALID_ARGUMENT");
    expect((tooLarge as RemoteCallError).message).to.match(/^junit: must total at most 4 MiB/);
    second.close();
  });
});
