import { MainlineError } from "@mainline/kit/errors/index";
import { statusCheckStateOf, wireRunOutcome } from "@mainline/contract";
import {
  TestRunOutcome,
  TestRunResult,
  type PullRequestCommit,
  type StatusCheck,
  type TestRunJob,
} from "@mainline/proto/queue";
import { MergeConflictError } from "../git/git-errors.js";
import type { ProjectedBranch } from "../git/projected-branch.js";
import type { RunVerdict } from "./run-tests.js";
import type { TestRunRequest } from "./test-run-request.js";

interface Times {
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

/** The run got as far as a verdict from its runner. */
export function verdictResult(
  request: TestRunRequest,
  branch: ProjectedBranch,
  verdict: RunVerdict,
  times: Times,
): TestRunResult {
  const statusCheck: StatusCheck = {
    context: "mainline/test-command",
    url: verdict.detailsUrl ?? "",
    state: statusCheckStateOf(verdict.outcome),
  };
  return TestRunResult.fromPartial({
    ...branchFields(request, branch),
    outcome: TestRunOutcome[wireRunOutcome(verdict.outcome)],
    message: verdict.message,
    statusChecks: [statusCheck],
    junitXml: verdict.junitXml,
    ...times,
    ...(verdict.detailsUrl !== undefined && { detailsUrl: verdict.detailsUrl }),
  });
}

/**
 * The run ended before a verdict: a PR that does not apply is MERGE_CONFLICT naming it; anything
 * else (a PR head that changed, a missing ref, a broken remote) is ERROR with git's reason.
 */
export function failureResult(
  job: Pick<TestRunJob, "testRunId" | "queue">,
  error: unknown,
  times: Times,
  branch?: { request: TestRunRequest; branch: ProjectedBranch },
): TestRunResult {
  const conflict = error instanceof MergeConflictError ? error : undefined;
  return TestRunResult.fromPartial({
    testRunId: job.testRunId,
    queue: job.queue,
    ...(branch !== undefined && branchFields(branch.request, branch.branch)),
    outcome: conflict ? TestRunOutcome.MERGE_CONFLICT : TestRunOutcome.ERROR,
    ...(conflict && { conflictingPrNumber: conflict.prNumber }),
    message: describe(error),
    ...times,
  });
}

function branchFields(request: TestRunRequest, branch: ProjectedBranch): Partial<TestRunResult> {
  return {
    testRunId: request.testRunId,
    queue: request.queue,
    testBranch: branch.testBranch,
    testBranchSha: branch.testBranchSha,
    baseSha: branch.baseSha,
    commits: pushedCommits(request, branch),
  };
}

/** Each PR's commit on the test branch, in application order, as the coordinator listed them. */
export function pushedCommits(request: TestRunRequest, branch: ProjectedBranch): PullRequestCommit[] {
  return request.projected.pullRequests.flatMap((pr) => {
    const commitSha = branch.commitsByPr[pr.number];
    return commitSha === undefined ? [] : [{ prNumber: pr.number, commitSha }];
  });
}

function describe(error: unknown): string {
  if (error instanceof MainlineError) return error.message;
  return `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
}
