import type { JetStreamClient } from "nats";
import { publish } from "@mainline/kit/bus/index";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { UploadTestResultsRequest } from "@mainline/proto/flaky";
import { MergeResult, TestRunPushed, TestRunResult } from "@mainline/proto/queue";

// Message ids derive from the job's own id only, so every delivery of a job publishes under the
// same id and the stream stores its result once (within the duplicate window).
export const testRunResultMsgId = (testRunId: string): string => `test-run-result:${testRunId}`;
export const testResultsUploadMsgId = (testRunId: string): string => `test-results:${testRunId}`;
export const testRunPushedMsgId = (testRunId: string): string => `test-run-pushed:${testRunId}`;
export const mergeResultMsgId = (mergeId: string): string => `merge-result:${mergeId}`;

export async function publishTestRunResult(js: JetStreamClient, result: TestRunResult): Promise<void> {
  await publish(js, SUBJECTS.testRunResult, TestRunResult, result, {
    msgId: testRunResultMsgId(result.testRunId),
  });
}

/** Before the tests run: an external CI needs the commit while the run is in progress. */
export async function publishTestRunPushed(js: JetStreamClient, pushed: TestRunPushed): Promise<void> {
  await publish(js, SUBJECTS.testRunPushed, TestRunPushed, pushed, {
    msgId: testRunPushedMsgId(pushed.testRunId),
  });
}

/** JUnit results of a merge-queue run, for flaky-analytics (upload id = test-run id). */
export async function publishTestResultsUpload(
  js: JetStreamClient,
  testRunId: string,
  upload: UploadTestResultsRequest,
): Promise<void> {
  await publish(js, SUBJECTS.testResults, UploadTestResultsRequest, upload, {
    msgId: testResultsUploadMsgId(testRunId),
  });
}

export async function publishMergeResult(js: JetStreamClient, result: MergeResult): Promise<void> {
  await publish(js, SUBJECTS.mergeResult, MergeResult, result, { msgId: mergeResultMsgId(result.mergeId) });
}
