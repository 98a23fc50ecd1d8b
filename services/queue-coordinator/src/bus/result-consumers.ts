import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, ensureConsumer, type ConsumerHandle } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import { NotFoundError } from "@mainline/kit/errors/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { MergeOutcome, MergeResult, TestRunPushed, TestRunResult } from "@mainline/proto/queue";
import { runOutcomeOfWire, testRunStatusOf } from "@mainline/contract";
import type { QueueEngine } from "../app/queue-engine.js";
import type { TestRunReports } from "../app/test-run-reports.js";
import type { AskTestEvidence } from "../app/run-test-knowledge.js";
import { queueAddress, queueKey } from "../app/queue-key.js";
import { incarnation, localId } from "../app/run-ids.js";
import { testEvidenceFields } from "../app/run-test-knowledge.js";
import type { QueueRepository } from "../store/queue-repository.js";
import type { BranchPushes } from "../store/branch-pushes.js";
import type { TestRunRecords } from "../store/test-run-records.js";

/**
 * Results from the batch-runner. Both handlers are idempotent: the planner ignores a result for a run or merge
 * it no longer tracks, so a redelivered message changes nothing twice.
 */
export async function startResultConsumers(deps: {
  js: JetStreamClient;
  jsm: JetStreamManager;
  engine: QueueEngine;
  queues: QueueRepository;
  runs: TestRunRecords;
  reports: TestRunReports;
  /** Heads the queue's own merges left on a target: their push events are not the target moving. */
  pushes?: BranchPushes;
  /** What flaky-analytics knows of a failed run's tests; none: decided without. */
  askTestEvidence?: AskTestEvidence;
  logger: Logger;
}): Promise<ConsumerHandle[]> {
  const { engine, queues, runs, reports, logger } = deps;
  const common = { ackWaitMs: 30_000, maxDeliver: 20, backoffMs: [1_000, 5_000, 30_000] };
  await ensureConsumer(deps.jsm, STREAMS.results.name, {
    durable: "queue-coordinator-test-runs",
    filterSubjects: [SUBJECTS.testRunResult],
    ...common,
  });
  await ensureConsumer(deps.jsm, STREAMS.results.name, {
    durable: "queue-coordinator-test-run-pushes",
    filterSubjects: [SUBJECTS.testRunPushed],
    ...common,
  });
  await ensureConsumer(deps.jsm, STREAMS.results.name, {
    durable: "queue-coordinator-merges",
    filterSubjects: [SUBJECTS.mergeResult],
    ...common,
  });

  /** The queue and the planner's id of a result, or undefined when the queue or its incarnation is gone. */
  const locate = async (ref: Parameters<typeof queueAddress>[0], globalRunId: string) => {
    const address = queueAddress(ref);
    try {
      const doc = await queues.get(address, true);
      const local = localId(globalRunId, incarnation(doc._id, doc.createdAt));
      return local ? { address, doc, local } : undefined;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  };

  const testRuns = await consume({
    js: deps.js,
    stream: STREAMS.results.name,
    durable: "queue-coordinator-test-runs",
    codec: TestRunResult,
    logger,
    async handler({ data }) {
      const found = await locate(data.queue, data.testRunId);
      if (!found)
        return logger.info(
          { testRunId: data.testRunId },
          "result for a queue that no longer exists; ignored",
        );
      // ERROR (the runner could not build the branch or run the tests at all) reads as BUILD_FAILED: the PRs
      // cannot be shown to pass, but no test failed either, and the PR's failure reason says so.
      const outcome = runOutcomeOfWire(data.outcome);
      if (!outcome)
        return logger.warn(
          { testRunId: data.testRunId, outcome: data.outcome },
          "result without an outcome; ignored",
        );
      // Asked before the step, outside the queue's commit: a redelivery asks again, which changes nothing twice.
      const evidence =
        outcome === "FAILED" && data.failedTests !== undefined
          ? await deps.askTestEvidence?.(found.address, {
              failed: data.failedTests.tests,
              truncated: data.failedTests.truncated,
            })
          : undefined;
      // The record first: a merge decided in the same step reads the tested commits from it.
      const record = await runs.get(queueKey(found.address), data.testRunId);
      await runs.finished(queueKey(found.address), data.testRunId, {
        status: testRunStatusOf(outcome),
        testBranch: data.testBranch,
        testBranchSha: data.testBranchSha,
        commits: Object.fromEntries(data.commits.map((c) => [String(c.prNumber), c.commitSha])),
        // The code host's CI statuses recorded while the run waited stay unless the runner brings its own.
        ...(data.statusChecks.length > 0 ? { statusChecks: data.statusChecks } : {}),
        finishedAt: (data.finishedAt ?? new Date()).toISOString(),
      });
      await engine.apply(
        found.address,
        {
          type: "TEST_RUN_FINISHED",
          runId: found.local,
          outcome,
          ...(data.conflictingPrNumber !== undefined ? { conflictingPr: data.conflictingPrNumber } : {}),
          ...(evidence !== undefined ? testEvidenceFields(evidence) : {}),
        },
        // A run already cancelled has ended for the metrics too: its late result is no second end.
        (builder) => {
          if (record?.status === "CANCELLED") return;
          builder.runFinished(
            found.local,
            record?.kind ?? "main",
            [...(record?.dependentPrs ?? []), ...(record?.prs ?? [])],
            data.outcome,
            data.startedAt,
          );
        },
      );
    },
  });

  // A side record for a COMMAND run (a push after the result changes nothing); for an external CI's run, the
  // commits its report will merge, and the report itself when the CI was quicker than this notice.
  const pushes = await consume({
    js: deps.js,
    stream: STREAMS.results.name,
    durable: "queue-coordinator-test-run-pushes",
    codec: TestRunPushed,
    logger,
    async handler({ data }) {
      const found = await locate(data.queue, data.testRunId);
      if (!found) return;
      await reports.pushed(found.doc, data.testRunId, {
        testBranch: data.testBranch,
        testBranchSha: data.testBranchSha,
        commits: Object.fromEntries(data.commits.map((c) => [String(c.prNumber), c.commitSha])),
      });
    },
  });

  const merges = await consume({
    js: deps.js,
    stream: STREAMS.results.name,
    durable: "queue-coordinator-merges",
    codec: MergeResult,
    logger,
    async handler({ data }) {
      const found = await locate(data.queue, data.mergeId);
      if (!found)
        return logger.info(
          { mergeId: data.mergeId },
          "merge result for a queue that no longer exists; ignored",
        );
      if (data.outcome === MergeOutcome.FAILED) {
        logger.error(
          { mergeId: data.mergeId, message: data.message },
          "merge failed; the queue restarts the affected runs",
        );
      }
      const landed = data.outcome === MergeOutcome.MERGED || data.mergedPrNumbers.length > 0;
      if (landed && deps.pushes) {
        // Before the merge finishes in the queue: from then on a push event for these heads finds no merge in
        // flight, and must find them here instead.
        const key = queueKey(found.address);
        for (const sha of new Set([...data.landedShas, data.newTargetSha].filter(Boolean)))
          await deps.pushes.record(key, sha);
      }
      await engine.apply(found.address, {
        type: "MERGE_FINISHED",
        mergeId: found.local,
        outcome: data.outcome === MergeOutcome.MERGED ? "MERGED" : "TARGET_MOVED",
        ...(data.outcome !== MergeOutcome.MERGED && data.mergedPrNumbers.length > 0
          ? { mergedPrs: [...data.mergedPrNumbers] }
          : {}),
      });
    },
  });
  return [testRuns, pushes, merges];
}
