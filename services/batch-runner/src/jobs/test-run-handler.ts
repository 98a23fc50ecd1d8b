import type { JetStreamClient } from "nats";
import type { DeliveryHandler } from "@mainline/kit/bus/index";
import { isRetryable } from "@mainline/kit/errors/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { TestRunOutputs } from "@mainline/kit/streams/index";
import { inSpan } from "@mainline/kit/telemetry/index";
import type { TestRunJob, TestRunResult } from "@mainline/proto/queue";
import {
  publishTestResultsUpload,
  publishTestRunPushed,
  publishTestRunResult,
} from "../bus/result-publishers.js";
import type { TestRunResultLedger } from "../bus/test-run-result-ledger.js";
import { buildProjectedBranch, type ProjectedBranch } from "../git/projected-branch.js";
import { assertRunId } from "../git/ref-names.js";
import { deleteTestBranches } from "../git/test-branch-cleanup.js";
import type { RepositoryCache } from "../git/repository-cache.js";
import type { RunCancellations } from "./run-cancellations.js";
import { flakyUploadOf } from "./flaky-upload.js";
import { retryLater, shouldRetry } from "./retry-later.js";
import { runTests } from "./run-tests.js";
import { readTestRunJob, type TestRunRequest } from "./test-run-request.js";
import { failureResult, pushedCommits, verdictResult } from "./test-run-result.js";

export interface TestRunHandlerDeps {
  readonly js: JetStreamClient;
  readonly cache: RepositoryCache;
  readonly ledger: TestRunResultLedger;
  readonly cancellations: RunCancellations;
  readonly outputs: TestRunOutputs;
  readonly logger: Logger;
  readonly clock: () => Date;
  readonly abort: AbortSignal;
  readonly maxRunSeconds: number;
  readonly maxDeliver: number;
}

// The two slow steps of a run get their own spans, so a trace shows whether git or the tests took the time.
const TRACER = "mainline-batch-runner";
const TEST_RUN_ID = "mainline.test_run.id";

/**
 * Handles one delivery of a TestRunJob: build and push the projected branch, then, for a COMMAND
 * run, run the tests, record the result, publish it to the coordinator and the JUnit to
 * flaky-analytics. A run an external CI tests ends here once its branch is pushed: the CI reports
 * to the coordinator, which already holds the pushed commits. Every step is safe to repeat: the
 * branch is reused by test-run id, the first recorded result wins, and publishes carry message ids
 * derived from the run id.
 */
export function testRunJobHandler(deps: TestRunHandlerDeps): DeliveryHandler<TestRunJob> {
  return async ({ data: job, deliveryCount }) => {
    // No result can be keyed by an id that is not one; the consumer terminates and logs it.
    assertRunId("testRunId", job.testRunId);
    const log = deps.logger.child({ testRunId: job.testRunId, deliveryCount });
    const recorded = await deps.ledger.read(job.testRunId);
    if (recorded !== undefined) {
      log.info("test run already decided by an earlier delivery; republishing its result");
      return announce(deps, job, recorded);
    }

    const followed = await deps.cancellations.follow(job.testRunId);
    try {
      // Acked without a result: the coordinator already forgot the run, and the slot is free at once.
      if (followed.signal.aborted) return log.info("test run cancelled before it started; skipped");
      const startedAt = deps.clock();
      let request: TestRunRequest;
      try {
        request = readTestRunJob(job, deps.maxRunSeconds);
      } catch (error) {
        // The coordinator learns the run is over; rethrowing then terminates the job, logged.
        await decide(deps, job, failureResult(job, error, { startedAt, finishedAt: deps.clock() }));
        throw error;
      }
      const result = await testRun(deps, request, startedAt, deliveryCount, followed.signal);
      if (result === CANCELLED) return log.info("test run cancelled; stopped and its test branch deleted");
      if (result === HANDED_OVER)
        return log.info("test branch pushed; the external CI reports its result to the coordinator");
      log.info({ outcome: result.outcome, testBranchSha: result.testBranchSha }, "test run finished");
      await decide(deps, job, result);
    } finally {
      followed.release();
    }
  };
}

/** A run the planner cancelled ends without a result: nobody waits for one. */
const CANCELLED = Symbol("cancelled");
/** An external CI's run: the batch-runner's part ends with the push. */
const HANDED_OVER = Symbol("handed over");

async function testRun(
  deps: TestRunHandlerDeps,
  request: TestRunRequest,
  startedAt: Date,
  deliveryCount: number,
  cancel: AbortSignal,
): Promise<TestRunResult | typeof CANCELLED | typeof HANDED_OVER> {
  const stopCancelled = async (branch?: ProjectedBranch): Promise<typeof CANCELLED> => {
    if (branch !== undefined) await deleteCancelledBranch(deps, request, branch);
    return CANCELLED;
  };
  const endWith = (error: unknown, branch?: ProjectedBranch): TestRunResult => {
    // A stopping replica hands the job back whatever the delivery count: the run is not over.
    if (deps.abort.aborted || shouldRetry(error, deliveryCount, deps.maxDeliver))
      throw retryLater(error, deliveryCount);
    const times = { startedAt, finishedAt: deps.clock() };
    const result = failureResult(request, error, times, branch && { request, branch });
    if (isRetryable(error)) result.message += ` (gave up after ${deliveryCount} attempts)`;
    return result;
  };

  const attributes = { [TEST_RUN_ID]: request.testRunId };
  let branch: ProjectedBranch;
  try {
    branch = await inSpan(TRACER, "build projected branch", attributes, () =>
      buildProjectedBranch(deps.cache, request.projected),
    );
    await publishTestRunPushed(deps.js, {
      testRunId: request.testRunId,
      queue: request.queue,
      testBranch: branch.testBranch,
      testBranchSha: branch.testBranchSha,
      pushedAt: deps.clock(),
      commits: pushedCommits(request, branch),
    });
  } catch (error) {
    if (cancel.aborted) return stopCancelled();
    return endWith(error);
  }
  if (cancel.aborted) return stopCancelled(branch);
  if (branch.reused)
    deps.logger.info({ testRunId: request.testRunId }, "test branch already pushed; reusing it");
  const runner = request.runner;
  if (runner.kind === "external") return HANDED_OVER;
  try {
    const verdict = await inSpan(TRACER, "run tests", attributes, async (span) => {
      const ran = await runTests(request, runner, branch, deps, cancel);
      span.setAttribute("mainline.test_run.outcome", ran.outcome);
      return ran;
    });
    if (cancel.aborted) return stopCancelled(branch);
    return verdictResult(request, branch, verdict, { startedAt, finishedAt: deps.clock() });
  } catch (error) {
    if (cancel.aborted) return stopCancelled(branch);
    return endWith(error, branch);
  }
}

/**
 * A CI that builds test branches stops when its branch goes (as most do on branch deletion). A
 * remote that refuses is logged, not retried: the cancellation is final and the branch is only clutter.
 */
async function deleteCancelledBranch(
  deps: TestRunHandlerDeps,
  request: TestRunRequest,
  branch: ProjectedBranch,
): Promise<void> {
  try {
    await deleteTestBranches(
      deps.cache,
      request.projected.remoteUrl,
      [branch.testBranch],
      request.projected.credentialsSecretName,
      request.projected.githubInstallationId,
    );
  } catch (error) {
    deps.logger.warn(
      { err: error, testRunId: request.testRunId, testBranch: branch.testBranch },
      "could not delete the test branch of a cancelled run",
    );
  }
}

/** State first, then events (DESIGN rule 4): the ledger decides which result is the run's. */
async function decide(deps: TestRunHandlerDeps, job: TestRunJob, result: TestRunResult): Promise<void> {
  await announce(deps, job, await deps.ledger.recordFirst(result));
}

async function announce(deps: TestRunHandlerDeps, job: TestRunJob, result: TestRunResult): Promise<void> {
  await publishTestRunResult(deps.js, result);
  if (result.junitXml.length > 0) {
    await publishTestResultsUpload(deps.js, result.testRunId, flakyUploadOf(job, result));
  }
}
