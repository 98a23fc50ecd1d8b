import type { JetStreamClient } from "nats";
import { FailedPreconditionError, NotFoundError } from "@mainline/kit/errors/index";
import { publish } from "@mainline/kit/bus/index";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { ResultContext, UploadTestResultsRequest } from "@mainline/proto/flaky";
import { ExternalTestRunReported, TestRunOutcome } from "@mainline/proto/queue";
import type { QueueEngine } from "./queue-engine.js";
import { incarnation, localId } from "./run-ids.js";
import type { QueueDocument } from "../store/queue-repository.js";
import type { RepositoryConnections } from "../store/repository-connections.js";
import type { TestRunRecord, TestRunRecords } from "../store/test-run-records.js";

export interface TestRunReport {
  passed: boolean;
  detailsUrl?: string;
  message?: string;
  junitXml: string[];
  /** The statuses that decided it (code-host CI), kept on the run's record. */
  statusChecks?: { context: string; url: string; state: string }[];
  reportedAt: Date;
}

export interface TestRunReportDeps {
  engine: QueueEngine;
  runs: TestRunRecords;
  connections: RepositoryConnections;
  js: JetStreamClient;
}

/**
 * An external CI's verdict on an in-progress test run, whoever carries it (`mainline report`, or the code
 * host's CI statuses on the test branch). A run the batch-runner pushed waits for the verdict on the bus; a run
 * known to the API alone finishes here. Idempotent by run: the event id is the run's.
 */
export async function reportTestRun(
  deps: TestRunReportDeps,
  record: TestRunRecord,
  doc: QueueDocument,
  report: TestRunReport,
): Promise<void> {
  const address = { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch };
  if (record.viaRunner) {
    const connection = await deps.connections.get(doc.org, doc.repoKey);
    if (connection?.runner.kind !== "EXTERNAL") {
      throw new FailedPreconditionError(
        `test run ${record.runId} is run by the batch-runner's command, not by an external CI`,
      );
    }
    const event: ExternalTestRunReported = {
      eventId: `report-${record.runId}`,
      org: doc.org,
      testRunId: record.runId,
      passed: report.passed,
      junitXml: report.junitXml,
      reportedAt: report.reportedAt,
      ...(report.detailsUrl ? { detailsUrl: report.detailsUrl } : {}),
      ...(report.message ? { message: report.message } : {}),
    };
    if (report.statusChecks) await deps.runs.statusChecks(doc._id, record.runId, report.statusChecks);
    await publish(deps.js, SUBJECTS.externalReport, ExternalTestRunReported, event, { msgId: event.eventId });
    return;
  }
  const local = localId(record.runId, incarnation(doc._id, doc.createdAt));
  if (!local) throw new NotFoundError(`test run ${record.runId} does not exist`);
  await deps.engine.apply(
    address,
    { type: "TEST_RUN_FINISHED", runId: local, outcome: report.passed ? "PASSED" : "FAILED" },
    (builder) =>
      builder.runFinished(
        local,
        record.kind,
        [...record.dependentPrs, ...record.prs],
        report.passed ? TestRunOutcome.PASSED : TestRunOutcome.FAILED,
        new Date(record.createdAt),
      ),
  );
  await deps.runs.finished(doc._id, record.runId, {
    status: report.passed ? "SUCCEEDED" : "FAILED",
    finishedAt: report.reportedAt.toISOString(),
    statusChecks:
      report.statusChecks ??
      (report.detailsUrl
        ? [{ context: "external", url: report.detailsUrl, state: report.passed ? "success" : "failure" }]
        : []),
  });
  if (report.junitXml.length > 0) {
    // Spec rule 15: tagged with the merge-queue context, so flaky-analytics never counts bisection runs.
    const upload: UploadTestResultsRequest = {
      org: doc.org,
      repo: doc.repo,
      commitSha: record.testBranchSha,
      branch: record.testBranch,
      variant: "",
      jobName: "merge-queue",
      runStartedAt: new Date(record.createdAt),
      context: record.kind === "bisection" ? ResultContext.BISECTION : ResultContext.MERGE_QUEUE,
      junitXml: report.junitXml,
      uploadId: record.runId,
    };
    await publish(deps.js, SUBJECTS.testResults, UploadTestResultsRequest, upload, {
      msgId: `results-${record.runId}`,
    });
  }
}
