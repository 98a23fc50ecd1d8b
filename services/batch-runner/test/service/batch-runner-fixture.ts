import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from "nats";
import { publish } from "@mainline/kit/bus/index";
import type { GitHubAppClient } from "@mainline/kit/github/index";
import { createLogger } from "@mainline/kit/logging/index";
import { provisionMainlineStreams, STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { NatsServer } from "@mainline/testing";
import { UploadTestResultsRequest } from "@mainline/proto/flaky";
import {
  MergeJob,
  MergeMethod,
  MergeResult,
  RunnerKind,
  TestBranchCleanupJob,
  TestRunJob,
  TestRunEventType,
  TestRunKind,
  TestRunLifecycleEvent,
  TestRunPushed,
  TestRunResult,
  type Runner,
} from "@mainline/proto/queue";
import { startBatchRunner, type BatchRunner } from "../../src/main.js";
import { JOB_CONSUMERS, type JobConsumerSettings } from "../../src/bus/job-consumers.js";
import type { RemoteFixture } from "../git/remote-fixture.js";
import { BusInbox } from "./bus-inbox.js";

export const QUEUE = {
  org: "acme",
  repo: { host: "git.example.com", owner: "acme", name: "app" },
  targetBranch: "main",
};

let runIds = 0;
/** Unique per test file run: the result ledger lives as long as the nats-server. */
export const newRunId = (label: string): string => `${label}-${++runIds}`;

export const commandRunner = (
  command: string,
  junitGlobs: string[] = [],
  env: Record<string, string> = {},
): Runner => ({ kind: RunnerKind.COMMAND, command, junitGlobs, env });
export const externalRunner: Runner = { kind: RunnerKind.EXTERNAL, command: "", junitGlobs: [], env: {} };

/** A test-run job on `remote` as the coordinator would publish it, its test branch named by the run id. */
export function testRunJobFor(
  remote: Pick<RemoteFixture, "url">,
  testRunId: string,
  pullRequests: Array<{ number: number; underTest?: boolean }>,
  runner: Runner,
  overrides: Partial<TestRunJob> = {},
): TestRunJob {
  return TestRunJob.fromPartial({
    testRunId,
    queue: QUEUE,
    kind: TestRunKind.MAIN,
    pullRequests: pullRequests.map((pr) => ({
      number: pr.number,
      title: `Change ${pr.number}`,
      underTest: pr.underTest ?? true,
    })),
    mergeMethod: MergeMethod.SQUASH,
    testBranch: `mainline/test/main/${testRunId}`,
    remoteUrl: remote.url,
    runner,
    timeoutSeconds: 60,
    ...overrides,
  });
}

/**
 * A real nats-server, the batch-runner's job handling started in-process on it (as main.ts does),
 * and inboxes standing in for the coordinator and flaky-analytics on the result subjects.
 */
export class BatchRunnerFixture {
  readonly runners: BatchRunner[] = [];
  private readonly connections: NatsConnection[] = [];
  private readonly workDirs: string[] = [];

  private constructor(
    readonly server: NatsServer,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly testRunResults: BusInbox<TestRunResult>,
    readonly mergeResults: BusInbox<MergeResult>,
    readonly uploads: BusInbox<UploadTestResultsRequest>,
    readonly pushes: BusInbox<TestRunPushed>,
  ) {}

  /** `github`: the App the runner merges through (against a GitHubDouble), for merge jobs with mergeThroughApi. */
  static async start(consumers?: JobConsumerSettings, github?: GitHubAppClient): Promise<BatchRunnerFixture> {
    const server = await NatsServer.start();
    const fixture = await BatchRunnerFixture.onServer(server);
    const { runner, workDir } = await BatchRunnerFixture.startRunnerOn(
      fixture.connections[0]!,
      consumers,
      github,
    );
    fixture.runners.push(runner);
    fixture.workDirs.push(workDir);
    return fixture;
  }

  /** The nats-server, its streams and the inboxes, with no replica in this process (tests start their own). */
  static async withoutRunners(): Promise<BatchRunnerFixture> {
    return BatchRunnerFixture.onServer(await NatsServer.start());
  }

  private static async onServer(server: NatsServer): Promise<BatchRunnerFixture> {
    const nc = await connect(server.connectOptions());
    const js = nc.jetstream();
    const jsm = await nc.jetstreamManager();
    await provisionMainlineStreams(jsm);
    const onResults = { js, jsm, stream: STREAMS.results.name };
    const fixture = new BatchRunnerFixture(
      server,
      js,
      jsm,
      await BusInbox.open({
        ...onResults,
        subject: SUBJECTS.testRunResult,
        durable: "test-coordinator-runs",
        codec: TestRunResult,
        keyOf: (r) => r.testRunId,
      }),
      await BusInbox.open({
        ...onResults,
        subject: SUBJECTS.mergeResult,
        durable: "test-coordinator-merges",
        codec: MergeResult,
        keyOf: (r) => r.mergeId,
      }),
      await BusInbox.open({
        ...onResults,
        stream: STREAMS.jobs.name,
        subject: SUBJECTS.testResults,
        durable: "test-flaky-analytics",
        codec: UploadTestResultsRequest,
        keyOf: (u) => u.uploadId ?? "",
      }),
      await BusInbox.open({
        ...onResults,
        subject: SUBJECTS.testRunPushed,
        durable: "test-coordinator-pushes",
        codec: TestRunPushed,
        keyOf: (p) => p.testRunId,
      }),
    );
    fixture.connections.push(nc);
    return fixture;
  }

  /** Another replica on its own connection and work dir, sharing the durable consumers. */
  async addReplica(): Promise<void> {
    const nc = await connect(this.server.connectOptions());
    const { runner, workDir } = await BatchRunnerFixture.startRunnerOn(nc);
    this.connections.push(nc);
    this.runners.push(runner);
    this.workDirs.push(workDir);
  }

  private static async startRunnerOn(
    nc: NatsConnection,
    consumers?: JobConsumerSettings,
    github?: GitHubAppClient,
  ): Promise<{ runner: BatchRunner; workDir: string }> {
    const workDir = await mkdtemp(join(tmpdir(), "mainline-batch-runner-"));
    const runner = await startBatchRunner({
      nats: nc,
      logger: createLogger("batch-runner", process.env.LOG_LEVEL ?? "silent"),
      settings: {
        workDir,
        gitIdentity: { name: "Mainline Test", email: "mainline@test.invalid" },
        jobConcurrency: 4,
        maxRunSeconds: 120,
        ...(consumers && { consumers }),
        ...(github && { github }),
      },
    });
    return { runner, workDir };
  }

  testRunJob(...args: Parameters<typeof testRunJobFor>): TestRunJob {
    return testRunJobFor(...args);
  }

  /** Publishes a job as the coordinator would; returns its stream sequence. */
  async publishTestRunJob(job: TestRunJob, msgId = `test-run-job:${job.testRunId}`): Promise<number> {
    return (await publish(this.js, SUBJECTS.testRunJob, TestRunJob, job, { msgId })).seq;
  }

  async publishMergeJob(job: MergeJob): Promise<number> {
    return (await publish(this.js, SUBJECTS.mergeJob, MergeJob, job, { msgId: `merge-job:${job.mergeId}` }))
      .seq;
  }

  /** The coordinator's cleanup of a cancelled external run's branch; returns its stream sequence. */
  async publishTestBranchCleanup(remote: Pick<RemoteFixture, "url">, testRunId: string): Promise<number> {
    const job = TestBranchCleanupJob.fromPartial({
      cleanupId: testRunId,
      queue: QUEUE,
      remoteUrl: remote.url,
      testBranches: [`mainline/test/main/${testRunId}`],
    });
    return (
      await publish(this.js, SUBJECTS.testBranchCleanupJob, TestBranchCleanupJob, job, {
        msgId: `cleanup-${testRunId}`,
      })
    ).seq;
  }

  /** The coordinator's cancellation of a run, as its outbox publishes it. */
  async publishCancellation(testRunId: string): Promise<void> {
    const event = TestRunLifecycleEvent.fromPartial({
      eventId: `cancel-${testRunId}`,
      type: TestRunEventType.CANCELLED,
      queue: QUEUE,
      testRunId,
      reason: "RESTART_REQUESTED",
    });
    await publish(this.js, SUBJECTS.testRunEvent, TestRunLifecycleEvent, event, { msgId: event.eventId });
  }

  /** Waits until the batch-runner has settled (acked or terminated) the job at `seq`. */
  async jobSettled(seq: number, consumer: { durable: string } = JOB_CONSUMERS.testRun): Promise<void> {
    for (;;) {
      const info = await this.jsm.consumers.info(STREAMS.jobs.name, consumer.durable);
      if (info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0) return;
      await sleep(20);
    }
  }

  /** Messages ever stored on the results stream: a duplicate publish stores nothing. */
  async resultsStored(): Promise<number> {
    return (await this.jsm.streams.info(STREAMS.results.name)).state.last_seq;
  }

  /** Worktree folders any replica left in its work dir (none once its jobs are done). */
  async leftoverWorktrees(): Promise<string[]> {
    const lists = await Promise.all(
      this.runners.map((r) => readdir(join(r.workDir, "worktrees")).catch((): string[] => [])),
    );
    return lists.flat();
  }

  async stop(): Promise<void> {
    for (const runner of this.runners) await runner.stop();
    await Promise.all([
      this.testRunResults.stop(),
      this.mergeResults.stop(),
      this.uploads.stop(),
      this.pushes.stop(),
    ]);
    for (const nc of this.connections) await nc.close();
    await this.server.stop();
    await Promise.all(this.workDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
