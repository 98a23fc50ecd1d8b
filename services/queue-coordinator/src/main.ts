import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { provisionMainlineStreams, TestRunOutputs } from "@mainline/kit/streams/index";
import type { GrpcService } from "@mainline/kit/grpc/index";
import { toGrpcImplementation } from "@mainline/kit/grpc/index";
import type { ServiceRuntime } from "@mainline/kit/service/index";
import { QueueCoordinatorService } from "@mainline/proto/queue";
import { queueCoordinatorApi } from "./api/queue-coordinator-api.js";
import { startResultConsumers } from "./bus/result-consumers.js";
import { startTargetTestConsumer } from "./bus/target-test-consumer.js";
import { PullRequestRecords } from "./store/pull-request-records.js";
import { InsightHours } from "./store/insight-hours.js";
import { QueueRepository } from "./store/queue-repository.js";
import { RepositoryConnections } from "./store/repository-connections.js";
import { GitHubInstallations } from "./store/github-installations.js";
import { BranchPushes } from "./store/branch-pushes.js";
import { RequestKeys } from "./store/request-keys.js";
import { TestRunRecords } from "./store/test-run-records.js";
import { QueueEngine } from "./app/queue-engine.js";
import { TestRunReports } from "./app/test-run-reports.js";
import { Timekeeper } from "./app/timekeeper.js";
import { runTestEvidence, type AskTestEvidence } from "./app/run-test-knowledge.js";
import { FlakyAnalyticsTestStatus } from "./app/test-status-source.js";
import { isEntryPoint, serveGrpc, startService } from "@mainline/kit/service/index";
import { configSchema } from "./config.js";

/** The insights' hour records: benchmarks fill a long history through the same writes the engine makes. */
export { InsightHours } from "./store/insight-hours.js";

export interface CoordinatorOptions {
  replicaId?: string;
  clock?: () => Date;
  /** How often the timekeeper looks for due alarms and leftover outboxes. */
  sweepEveryMs?: number;
  leaseTtlMs?: number;
  /** flaky-analytics (host:port), asked about failed runs' tests; none: every failed run is decided without. */
  flakyAnalyticsAddress?: string;
  /** How long a failed run waits for that answer (TEST_STATUS_DEADLINE_MS). */
  testStatusDeadlineMs?: number;
}

/**
 * Wires the queue-coordinator on a started runtime: stores, engine, result consumers, timekeeper, and the gRPC
 * service to serve. Registers each part in the shutdown order. The entry point below and the tests share it.
 */
export async function startQueueCoordinator(
  runtime: ServiceRuntime,
  options: CoordinatorOptions = {},
): Promise<{ grpc: GrpcService; engine: QueueEngine }> {
  const clock = options.clock ?? (() => new Date());
  const js = runtime.nats.jetstream();
  const jsm = await runtime.nats.jetstreamManager();
  await provisionMainlineStreams(jsm, runtime.replication);
  const queues = await QueueRepository.open(runtime.store);
  const records = await PullRequestRecords.open(runtime.store);
  const runs = await TestRunRecords.open(runtime.store);
  const connections = RepositoryConnections.open(runtime.store);
  const installations = await GitHubInstallations.open(runtime.store);
  const pushes = await BranchPushes.open(runtime.store, clock);
  const requestKeys = await RequestKeys.open(runtime.store);
  const outputs = await TestRunOutputs.open(js, runtime.replication);
  const insightHours = await InsightHours.open(runtime.store);
  const engine = new QueueEngine({
    insightHours,
    queues,
    records,
    runs,
    connections,
    installations,
    js,
    logger: runtime.logger,
    clock,
  });
  const source = options.flakyAnalyticsAddress
    ? new FlakyAnalyticsTestStatus(options.flakyAnalyticsAddress)
    : undefined;
  const knowledgeDeps = {
    source,
    deadlineMs: options.testStatusDeadlineMs ?? 2_000,
    logger: runtime.logger,
  };
  const askTestEvidence: AskTestEvidence = (queue, tests) => runTestEvidence(knowledgeDeps, queue, tests);
  if (source) runtime.shutdown.on("close-grpc", "flaky-analytics client", () => source.close());
  const reports = new TestRunReports({ engine, queues, runs, connections, clock, askTestEvidence });
  const consumers = await startResultConsumers({
    js,
    jsm,
    engine,
    queues,
    runs,
    reports,
    pushes,
    askTestEvidence,
    logger: runtime.logger,
  });
  const timekeeper = await Timekeeper.start({
    engine,
    queues,
    js,
    replicaId: options.replicaId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
    replication: runtime.replication,
    logger: runtime.logger,
    ...(options.sweepEveryMs !== undefined ? { sweepEveryMs: options.sweepEveryMs } : {}),
    ...(options.leaseTtlMs !== undefined ? { leaseTtlMs: options.leaseTtlMs } : {}),
  });
  consumers.push(await startTargetTestConsumer({ js, jsm, engine, queues, logger: runtime.logger }));
  runtime.shutdown.on("stop-consuming", "result consumers", async () => {
    await Promise.all(consumers.map((c) => c.stop()));
  });
  runtime.shutdown.on("stop-consuming", "timekeeper", () => timekeeper.stop());
  const implementation = toGrpcImplementation(
    queueCoordinatorApi({
      engine,
      queues,
      records,
      runs,
      connections,
      installations,
      pushes,
      requestKeys,
      reports,
      outputs,
      insightHours,
      clock,
    }),
    runtime.logger,
  );
  return { grpc: { definition: QueueCoordinatorService, implementation }, engine };
}

// Started by node (make dev, the image); imported for the wiring above by tests and tools.
if (isEntryPoint(import.meta.url)) {
  startService("queue-coordinator", configSchema, async (runtime, config) => {
    const { grpc } = await startQueueCoordinator(runtime, {
      leaseTtlMs: config.COORDINATOR_LEASE_TTL_MS,
      sweepEveryMs: config.COORDINATOR_SWEEP_INTERVAL_MS,
      flakyAnalyticsAddress: config.FLAKY_ANALYTICS_ADDR,
      testStatusDeadlineMs: config.TEST_STATUS_DEADLINE_MS,
    });
    await serveGrpc(runtime, { port: config.GRPC_PORT, services: [grpc] });
  });
}
