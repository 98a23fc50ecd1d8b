import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, ensureConsumer } from "@mainline/kit/bus/index";
import type { BusLogger, ConsumerHandle } from "@mainline/kit/bus/index";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { UploadTestResultsRequest } from "@mainline/proto/flaky";
import type { FlakyAnalytics } from "../app/flaky-analytics.js";
import { contextOf, repoOf, requireOrg } from "../api/command-parser.js";

export const TEST_RESULTS_DURABLE = "flaky-analytics-test-results";

/**
 * Ingests the merge queue's own results (payload: UploadTestResultsRequest, upload id = the test-run
 * id). An upload id already applied changes nothing, so a redelivery is harmless; a malformed
 * report is terminal (no delivery will parse better).
 */
export async function consumeTestResults(
  jsm: JetStreamManager,
  js: JetStreamClient,
  app: FlakyAnalytics,
  logger: BusLogger,
): Promise<ConsumerHandle> {
  await ensureConsumer(jsm, STREAMS.jobs.name, {
    durable: TEST_RESULTS_DURABLE,
    filterSubjects: [SUBJECTS.testResults],
    ackWaitMs: 60_000,
    maxDeliver: 20,
    backoffMs: [1_000, 5_000, 30_000, 60_000],
  });
  return consume({
    js,
    stream: STREAMS.jobs.name,
    durable: TEST_RESULTS_DURABLE,
    codec: UploadTestResultsRequest,
    logger,
    handler: async ({ data, msgId }) => {
      const uploadId = data.uploadId || msgId;
      if (!uploadId)
        throw new InvalidArgumentError("upload_id", "is required on JetStream (the test-run id)");
      await app.uploadTestResults({
        org: requireOrg(data.org),
        repo: repoOf(data.repo),
        commitSha: data.commitSha,
        branch: data.branch,
        prNumber: data.prNumber,
        impactedPrNumbers: data.impactedPrNumbers,
        variant: data.variant,
        jobName: data.jobName,
        runStartedAt: data.runStartedAt?.getTime(),
        context: contextOf(data.context),
        junitXml: data.junitXml,
        uploadId,
      });
    },
  });
}
