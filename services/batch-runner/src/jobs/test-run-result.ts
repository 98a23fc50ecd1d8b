import { MainlineError } from "@mainline/kit/errors/index";
import { statusCheckStateOf, wireRunOutcome } from "@mainline/contract";
import {
  TestRunOutcome,
  TestRunResult,
  type PullRequestCommit,
  type StatusCheck,
  type TestRunJob,
} from "@mainline/proto/queue";
import { failedTestsOf } from "@mainline/junit";
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
    ...failedTestsField(request, verdict),
  });
}

/**
 * The tests a failed run's JUnit names as failed, for the coordinator to decide per test (issue 26). A run that
 * passed, or wrote no JUnit, carries none: the coordinator then decides as it always did.
 */
function failedTestsField(request: TestRunRequest, verdict: RunVerdict): Partial<TestRunResult> {
  const repo = request.queue.repo;
  if (verdict.outcome === "PASSED" || verdict.junitXml.length === 0 || repo === undefined) return {};
  const failed = failedTestsOf(verdict.junitXml, { org: request.queue.org, repo });
  return { failedTests: { tests: failed.failed, truncated: failed.truncated } };
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
