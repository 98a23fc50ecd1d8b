import type { NatsConnection } from "nats";
import {
  consume,
  type ConsumerHandle,
  type DeliveryHandler,
  type MessageCodec,
  type Replication,
} from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import { provisionMainlineStreams, STREAMS, TestRunOutputs } from "@mainline/kit/streams/index";
import { MergeJob, TestBranchCleanupJob, TestRunJob, TestRunLifecycleEvent } from "@mainline/proto/queue";
import {
  CANCELLATION_CONSUMER,
  cancellationHandler,
  provisionCancellationConsumer,
} from "./bus/cancellation-consumer.js";
import {
  DEFAULT_JOB_CONSUMER_SETTINGS,
  JOB_CONSUMERS,
  provisionJobConsumers,
  type JobConsumerSettings,
} from "./bus/job-consumers.js";
import { RunCancellationBoard } from "./bus/run-cancellation-board.js";
import { TestRunResultLedger } from "./bus/test-run-result-ledger.js";
import type { GitIdentity } from "./git/git.js";
import { GitCredentials } from "./git/git-credentials.js";
import { RepositoryCache } from "./git/repository-cache.js";
import { claimWorkDir } from "./git/work-dir-claim.js";
import { mergeJobHandler } from "./jobs/merge-handler.js";
import { RunCancellations } from "./jobs/run-cancellations.js";
import { testBranchCleanupHandler } from "./jobs/test-branch-cleanup-handler.js";
import { testRunJobHandler } from "./jobs/test-run-handler.js";
import { isEntryPoint, serveGrpc, startService } from "@mainline/kit/service/index";
import { GitHubAppClient, gitHubAppSettings } from "@mainline/kit/github/index";
import { configSchema } from "./config.js";

// What the NATS permissions name (tools/src/dev/service-permissions.ts): the buckets this service owns.
export { CANCELLED_RUNS_BUCKET } from "./bus/run-cancellation-board.js";
export { TEST_RUN_RESULTS_BUCKET } from "./bus/test-run-result-ledger.js";

export interface BatchRunnerSettings {
  /** Where this replica claims a folder of its own for repository mirrors and worktrees (may be shared). */
  readonly workDir: string;
  readonly gitIdentity: GitIdentity;
  /** Where credentials secrets are mounted, one directory per secret name (see GitCredentials). */
  readonly credentialsDir?: string;
  /** Test-run jobs (and, separately, merge jobs) handled at once by this replica. */
  readonly jobConcurrency: number;
  /** Cap on any run, and the timeout of runs whose queue sets none. */
  readonly maxRunSeconds: number;
  readonly consumers?: JobConsumerSettings;
  /**
   * The GitHub App: git authenticates to repositories of its installations with their tokens, and queues whose
   * merge method needs it merge through GitHub's API. Unset: jobs that need it fail, saying so.
   */
  readonly github?: GitHubAppClient;
}

export interface BatchRunnerDeps {
  readonly nats: NatsConnection;
  readonly logger: Logger;
  readonly settings: BatchRunnerSettings;
  readonly clock?: () => Date;
  /** NATS_REPLICAS: copies of the streams, buckets and object stores it creates (or raises); one when omitted. */
  readonly replication?: Replication | undefined;
}

/** A started batch-runner replica; its two stop steps follow the DESIGN shutdown order. */
export interface BatchRunner {
  /** The folder this replica claimed inside settings.workDir for its mirrors and worktrees. */
  readonly workDir: string;
  /** Stops pulling jobs; jobs in flight go on. Idempotent. */
  stopConsuming(): void;
  /** Resolves once every job in flight has settled (a running command is handed back to the stream). */
  finishInFlight(): Promise<void>;
  /** Both, in order (finishInFlight stops consuming first). */
  stop(): Promise<void>;
}

/**
 * Wires the batch-runner's job handling onto a NATS connection: provisions the shared streams and
 * its durable consumers, then consumes test-run jobs, merge jobs and test-branch cleanups. Replicas
 * are stateless and share the durable consumers; the entry point below and the tests both start it here.
 */
export async function startBatchRunner(deps: BatchRunnerDeps): Promise<BatchRunner> {
  const { nats, logger, settings } = deps;
  const clock = deps.clock ?? (() => new Date());
  const consumerSettings = settings.consumers ?? DEFAULT_JOB_CONSUMER_SETTINGS;
  const js = nats.jetstream();
  const jsm = await nats.jetstreamManager();
  await provisionMainlineStreams(jsm, deps.replication);
  await provisionJobConsumers(jsm, consumerSettings);
  await provisionCancellationConsumer(jsm, consumerSettings.ackWaitMs);

  // A folder of its own inside workDir: other processes given the same one keep their worktrees.
  const claim = await claimWorkDir(settings.workDir);
  const cache = new RepositoryCache({
    workDir: claim.dir,
    identity: settings.gitIdentity,
    credentials: new GitCredentials(settings.credentialsDir, settings.github),
  });
  const [ledger, cancelledRuns, outputs] = await Promise.all([
    TestRunResultLedger.open(js, deps.replication),
    RunCancellationBoard.open(js, deps.replication),
    TestRunOutputs.open(js, deps.replication),
  ]);
  const cancellations = new RunCancellations(cancelledRuns);
  const cancellationWatch = await cancelledRuns.watch(
    (testRunId) => cancellations.cancel(testRunId),
    (error) => logger.warn({ err: error }, "could not read a cancellation from the board"),
  );
  const abort = new AbortController();

  const common = { js, cache, logger, clock, maxDeliver: consumerSettings.maxDeliver };
  const handles: ConsumerHandle[] = [];
  const start = async <T>(
    consumer: { durable: string },
    codec: MessageCodec<T>,
    handler: DeliveryHandler<T>,
    stream: string = STREAMS.jobs.name,
  ): Promise<void> => {
    const handle = await consume<T>({
      js,
      stream,
      durable: consumer.durable,
      codec,
      handler,
      concurrency: settings.jobConcurrency,
      logger,
    });
    void handle.closed.then((error) => {
      if (error) logger.error({ err: error, durable: consumer.durable }, "job consumer stopped unexpectedly");
    });
    handles.push(handle);
  };
  await start(
    JOB_CONSUMERS.testRun,
    TestRunJob,
    testRunJobHandler({
      ...common,
      ledger,
      cancellations,
      outputs,
      abort: abort.signal,
      maxRunSeconds: settings.maxRunSeconds,
    }),
  );
  await start(
    JOB_CONSUMERS.merge,
    MergeJob,
    mergeJobHandler({
      ...common,
      ...(consumerSettings.githubWaitDeliveries === undefined
        ? {}
        : { githubWaitDeliveries: consumerSettings.githubWaitDeliveries }),
      ...(settings.github ? { github: settings.github } : {}),
    }),
  );
  await start(JOB_CONSUMERS.testBranchCleanup, TestBranchCleanupJob, testBranchCleanupHandler(common));
  await start(
    CANCELLATION_CONSUMER,
    TestRunLifecycleEvent,
    cancellationHandler(cancelledRuns),
    STREAMS.events.name,
  );
  logger.info({ workDir: claim.dir, concurrency: settings.jobConcurrency }, "consuming jobs");

  let stopped: Promise<void> | undefined;
  const stopConsuming = (): void => {
    stopped ??= Promise.all(handles.map((handle) => handle.stop())).then(() => undefined);
  };
  const finishInFlight = async (): Promise<void> => {
    stopConsuming();
    abort.abort();
    await stopped;
    cancellationWatch.stop();
    await claim.release();
  };
  return {
    workDir: claim.dir,
    stopConsuming,
    finishInFlight,
    stop: finishInFlight,
  };
}

// Started by node (make dev, the image); imported for the wiring above by tests and tools.
if (isEntryPoint(import.meta.url)) {
  startService("batch-runner", configSchema, async (runtime, config) => {
    const app = gitHubAppSettings(config);
    const runner = await startBatchRunner({
      nats: runtime.nats,
      logger: runtime.logger,
      replication: runtime.replication,
      settings: {
        workDir: config.BATCH_RUNNER_WORK_DIR,
        gitIdentity: { name: config.BATCH_RUNNER_GIT_NAME, email: config.BATCH_RUNNER_GIT_EMAIL },
        ...(config.BATCH_RUNNER_CREDENTIALS_DIR !== undefined && {
          credentialsDir: config.BATCH_RUNNER_CREDENTIALS_DIR,
        }),
        jobConcurrency: config.BATCH_RUNNER_JOB_CONCURRENCY,
        maxRunSeconds: config.BATCH_RUNNER_MAX_RUN_SECONDS,
        // A longer retry-after goes back to NATS (the merge job is redelivered after it) instead of holding a job slot.
        ...(app && {
          github: new GitHubAppClient({ settings: app, logger: runtime.logger, maxInlineWaitMs: 10_000 }),
        }),
      },
    });
    runtime.shutdown.on("stop-consuming", "batch-runner jobs", () => runner.stopConsuming());
    runtime.shutdown.on("finish-in-flight", "batch-runner jobs", () => runner.finishInFlight());
    // No queries of its own yet: gRPC carries the standard health service, for readiness.
    await serveGrpc(runtime, { port: config.GRPC_PORT, services: [] });
  });
}
