import { MERGE_QUEUE_JOB_NAME, runKindOfWire, runResultContext } from "@mainline/contract";
import { ResultContext, UploadTestResultsRequest } from "@mainline/proto/flaky";
import type { TestRunJob, TestRunResult } from "@mainline/proto/queue";

export { MERGE_QUEUE_JOB_NAME };

/**
 * The JUnit results of a merge-queue run as an upload for flaky-analytics. The context tells it
 * how to weigh them (spec rule 15): bisection runs are never flakiness data, and merge-queue
 * failures that pass on the target are not either; that judgement is flaky-analytics' own.
 */
export function flakyUploadOf(job: TestRunJob, result: TestRunResult): UploadTestResultsRequest {
  const underTest = job.pullRequests.filter((pr) => pr.underTest);
  return UploadTestResultsRequest.fromPartial({
    org: result.queue?.org ?? "",
    repo: result.queue?.repo,
    commitSha: result.testBranchSha,
    branch: result.testBranch,
    // A single-PR run's results belong to that PR; a batch's to no single one.
    ...(underTest.length === 1 && { prNumber: underTest[0]!.number }),
    // Yet a test that fails a batch impacted each of its PRs (the "PRs impacted" figure counts them).
    ...(underTest.length > 1 && { impactedPrNumbers: underTest.map((pr) => pr.number) }),
    jobName: MERGE_QUEUE_JOB_NAME,
    runStartedAt: result.startedAt,
    context: ResultContext[runResultContext(runKindOfWire(job.kind))],
    junitXml: result.junitXml,
    uploadId: result.testRunId,
  });
}
