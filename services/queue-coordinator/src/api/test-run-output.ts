import { InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import type { TestRunOutputs } from "@mainline/kit/streams/index";
import type {
  GetTestRunOutputRequest,
  GetTestRunOutputResponse,
  SubmittedPullRequest,
} from "@mainline/proto/queue";
import type { PullRequestEntry } from "../domain/index.js";
import { globalId } from "../app/run-ids.js";
import type { TestRunRecords } from "../store/test-run-records.js";

// Run ids are ours (run-N_<incarnation>); anything longer or with other characters names no run.
const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The kept output of a COMMAND run, for the run's own organisation only: a run of another organisation, an
 * unknown run and a run without output all answer the same NOT_FOUND, so no one learns another's run exists.
 */
export async function testRunOutput(
  deps: { runs: TestRunRecords; outputs: TestRunOutputs },
  req: GetTestRunOutputRequest,
): Promise<GetTestRunOutputResponse> {
  if (!RUN_ID.test(req.testRunId))
    throw new InvalidArgumentError("testRunId", "must be 1 to 128 letters, digits, '-' or '_'");
  if (!req.org) throw new InvalidArgumentError("org", "is required");
  const missing = () => new NotFoundError(`test run ${req.testRunId} has no kept output`);
  const record = await deps.runs.byRunId(req.testRunId);
  // The queue key starts with the organisation (queue-key.ts).
  if (!record || !record.queueKey.startsWith(`${req.org}#`)) throw missing();
  const output = await deps.outputs.read(req.testRunId);
  if (output === undefined) throw missing();
  return { output };
}

/** A FAILED PR points to where its failing run explains itself (see SubmittedPullRequest.failure_details_url). */
export async function withFailureDetails(
  pr: SubmittedPullRequest,
  entry: PullRequestEntry,
  queue: { key: string; incarnation: string },
  runs: TestRunRecords,
): Promise<SubmittedPullRequest> {
  const last = entry.history[entry.history.length - 1];
  if (entry.state !== "FAILED" || !last?.runId) return pr;
  const record = await runs.get(queue.key, globalId(last.runId, queue.incarnation));
  const url = record?.statusChecks.find((check) => check.url !== "")?.url;
  return url ? { ...pr, failureDetailsUrl: url } : pr;
}
