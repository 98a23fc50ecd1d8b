import { FailedPreconditionError, NotFoundError } from "@mainline/kit/errors/index";
import {
  MERGE_QUEUE_JOB_NAME,
  reportedOutcome,
  runResultContext,
  statusCheckStateOf,
  testRunStatusOf,
  wireRunOutcome,
} from "@mainline/contract";
import { ResultContext, UploadTestResultsRequest } from "@mainline/proto/flaky";
import { TestRunOutcome } from "@mainline/proto/queue";
import type { QueueDocument, QueueRepository } from "../store/queue-repository.js";
import type { RepositoryConnections } from "../store/repository-connections.js";
import type { TestRunRecord, TestRunRecords, TestRunReport } from "../store/test-run-records.js";
import type { Extras, QueueEngine } from "./queue-engine.js";
import { failedTestsOf } from "@mainline/junit";
import { testEvidenceFields, type AskTestEvidence } from "./run-test-knowledge.js";
import { incarnation, localId } from "./run-ids.js";

export interface TestRunReportsDeps {
  engine: QueueEngine;
  queues: QueueRepository;
  runs: TestRunRecords;
  connections: RepositoryConnections;
  clock: () => Date;
  /** What flaky-analytics knows of a failed run's tests; none: decided without. */
  askTestEvidence?: AskTestEvidence;
}

/**
 * External CI verdicts on test runs. The coordinator applies them itself: the planner's step, the metrics'
 * run-finished fact and the JUnit upload for flaky-analytics are written in one commit with the queue (the
 * outbox), so a crash at any point loses nothing, and a repeated report (a retry after a lost answer or a crash)
 * is accepted and changes nothing twice. A run the batch-runner built is reported the same way once its push
 * notice has told the coordinator the tested commits; a report that comes first waits on the run's record.
 */
export class TestRunReports {
  constructor(private readonly deps: TestRunReportsDeps) {}

  async report(org: string, testRunId: string, report: TestRunReport): Promise<void> {
    const { runs, queues, connections } = this.deps;
    let record = testRunId ? await runs.byRunId(testRunId) : null;
    if (!record || !record.queueKey.startsWith(`${org}#`))
      throw new NotFoundError(`test run ${testRunId} does not exist`);
    const doc = await queues.byKey(record.queueKey);
    if (!doc) throw new NotFoundError(`test run ${testRunId} does not exist`);
    if (record.status === "CANCELLED" || (record.status !== "IN_PROGRESS" && !sameVerdict(record, report)))
      throw new FailedPreconditionError(`test run ${testRunId} is already ${record.status.toLowerCase()}`);
    if (record.viaRunner) {
      const connection = await connections.get(doc.org, doc.repoKey);
      if (connection?.runner.kind !== "EXTERNAL") {
        throw new FailedPreconditionError(
          `test run ${testRunId} is run by the batch-runner's command, not by an external CI`,
        );
      }
      // The CI saw the branch, but the push notice may not have been read yet: the commits to merge are in it.
      if (record.testBranchSha === "") {
        if (record.heldReport && record.heldReport.passed !== report.passed) {
          const said = record.heldReport.passed ? "passed" : "failed";
          throw new FailedPreconditionError(`test run ${testRunId} is already reported as ${said}`);
        }
        if (await runs.holdReport(record.queueKey, testRunId, report)) return;
        record = (await runs.get(record.queueKey, testRunId)) ?? record;
      }
    }
    await this.apply(doc, record, report);
  }

  /** The batch-runner's push notice: records the tested commits, then applies a report that was waiting for them. */
  async pushed(
    doc: QueueDocument,
    testRunId: string,
    push: Pick<TestRunRecord, "testBranch" | "testBranchSha" | "commits">,
  ): Promise<void> {
    const record = await this.deps.runs.pushed(doc._id, testRunId, push);
    if (record?.heldReport) await this.apply(doc, record, record.heldReport);
  }

  /**
   * The planner's step first, the record after: a crash in between leaves the record in progress, and the retry
   * (or the redelivered push notice) applies again, which the planner ignores for a run it has finished.
   */
  private async apply(doc: QueueDocument, record: TestRunRecord, report: TestRunReport): Promise<void> {
    const local = localId(record.runId, incarnation(doc._id, doc.createdAt));
    if (!local) throw new NotFoundError(`test run ${record.runId} does not exist`);
    const address = { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch };
    // An external CI's JUnit names the failed tests as a COMMAND runner's result does (the same parser and ids).
    const evidence =
      !report.passed && report.junitXml.length > 0
        ? await this.deps.askTestEvidence?.(
            address,
            failedTestsOf(report.junitXml, { org: doc.org, repo: doc.repo }),
          )
        : undefined;
    await this.deps.engine.apply(
      address,
      {
        type: "TEST_RUN_FINISHED",
        runId: local,
        outcome: reportedOutcome(report.passed),
        ...(evidence !== undefined ? testEvidenceFields(evidence) : {}),
      },
      finishedRunMessages(local, record, report),
    );
    const state = statusCheckStateOf(reportedOutcome(report.passed));
    await this.deps.runs.finished(doc._id, record.runId, {
      status: testRunStatusOf(reportedOutcome(report.passed)),
      finishedAt: this.deps.clock().toISOString(),
      statusChecks:
        report.statusChecks ??
        (report.detailsUrl
          ? [
              {
                context: record.viaRunner ? "mainline/external-ci" : "external",
                url: report.detailsUrl,
                state,
              },
            ]
          : []),
    });
  }
}

function sameVerdict(record: TestRunRecord, report: TestRunReport): boolean {
  return record.status === testRunStatusOf(reportedOutcome(report.passed));
}

/**
 * What the report owes the bus, added to the planner's commit. Only by the step that finishes the run: a repeat
 * finds it finished and adds nothing (the upload's message id would make a second copy harmless anyway).
 */
function finishedRunMessages(local: string, record: TestRunRecord, report: TestRunReport): Extras {
  return (builder, doc) => {
    if (doc.planner.runs[local]?.status !== "RUNNING") return;
    builder.runFinished(
      local,
      record.kind,
      [...record.dependentPrs, ...record.prs],
      TestRunOutcome[wireRunOutcome(reportedOutcome(report.passed))],
      new Date(record.createdAt),
    );
    if (report.junitXml.length > 0)
      builder.testResultsUpload(record.runId, mergeQueueUpload(doc, record, report));
  };
}

/** Spec rule 15: tagged with the merge-queue context, so flaky-analytics never counts bisection runs. */
function mergeQueueUpload(
  doc: QueueDocument,
  record: TestRunRecord,
  report: TestRunReport,
): UploadTestResultsRequest {
  return UploadTestResultsRequest.fromPartial({
    org: doc.org,
    repo: doc.repo,
    commitSha: record.testBranchSha,
    branch: record.testBranch,
    // A single-PR run's results belong to that PR; a batch's to no single one.
    ...(record.prs.length === 1 && { prNumber: record.prs[0] }),
    jobName: MERGE_QUEUE_JOB_NAME,
    runStartedAt: new Date(record.createdAt),
    context: ResultContext[runResultContext(record.kind)],
    junitXml: report.junitXml,
    uploadId: record.runId,
  });
}
