import { wireWord } from "@mainline/contract";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { QueueRef } from "@mainline/proto/common";
import { MergeMethod, RunnerKind, TestRunKind, type TestRunJob } from "@mainline/proto/queue";
import type { MergeMethod as GitMergeMethod } from "../git/apply-pull-request.js";
import type { ProjectedBranchJob } from "../git/projected-branch.js";
import { assertSecretName } from "../git/git-credentials.js";
import {
  assertBranchName,
  assertRemoteUrl,
  assertRunId,
  DEFAULT_TEST_BRANCH_PREFIX,
} from "../git/ref-names.js";

export interface CommandTestRunner {
  readonly kind: "command";
  readonly command: string;
  readonly junitGlobs: readonly string[];
  /** The repository's declared variables (the coordinator checked them); the runner's own win. */
  readonly env: Readonly<Record<string, string>>;
}

/** An external CI builds the pushed branch and reports to the coordinator. */
export type TestRunner = CommandTestRunner | { readonly kind: "external" };

/** A TestRunJob checked and translated into what the git and runner modules take. */
export interface TestRunRequest {
  readonly testRunId: string;
  readonly queue: QueueRef;
  readonly kind: TestRunKind;
  readonly projected: ProjectedBranchJob;
  readonly runner: TestRunner;
  readonly timeoutMs: number;
}

/** The wire's merge method is git's word already (string enums); UNSPECIFIED names none. */
const gitMergeMethod = (method: MergeMethod): GitMergeMethod | undefined => wireWord(method);

/**
 * Checks a job before any git work. Throws InvalidArgumentError naming the field: such a job can
 * never succeed, however often it is delivered.
 */
export function readTestRunJob(job: TestRunJob, maxRunSeconds: number): TestRunRequest {
  assertRunId("testRunId", job.testRunId);
  const queue = job.queue;
  if (queue === undefined) throw new InvalidArgumentError("queue", "is required");
  assertBranchName("queue.targetBranch", queue.targetBranch);
  assertRemoteUrl("remoteUrl", job.remoteUrl);
  if (job.credentialsSecretName !== "") assertSecretName(job.credentialsSecretName);
  const mergeMethod = gitMergeMethod(job.mergeMethod);
  if (mergeMethod === undefined)
    throw new InvalidArgumentError("mergeMethod", "must be MERGE_COMMIT, SQUASH or REBASE");
  if (job.pullRequests.length === 0)
    throw new InvalidArgumentError("pullRequests", "must name at least one pull request");
  if (!job.pullRequests.some((pr) => pr.underTest))
    throw new InvalidArgumentError("pullRequests", "must mark at least one pull request under test");
  if (job.kind !== TestRunKind.MAIN && job.kind !== TestRunKind.BISECTION)
    throw new InvalidArgumentError("kind", "must be MAIN or BISECTION");

  const projected: ProjectedBranchJob = {
    remoteUrl: job.remoteUrl,
    ...(job.credentialsSecretName !== "" && { credentialsSecretName: job.credentialsSecretName }),
    ...(job.github && { githubInstallationId: job.github.installationId }),
    targetBranch: queue.targetBranch,
    testRunId: job.testRunId,
    mergeMethod,
    pullRequests: job.pullRequests.map((pr) => ({
      number: pr.number,
      title: pr.title !== "" ? pr.title : `Pull request #${pr.number}`,
      ...(pr.headSha !== "" && { expectedHeadSha: pr.headSha }),
      ...(!pr.underTest && { aheadOnly: true }),
    })),
    ...(job.baseSha !== undefined && job.baseSha !== "" && { baseSha: job.baseSha }),
    ...(job.pullRefPattern !== "" && { pullRefPattern: job.pullRefPattern }),
    testBranchPrefix: testBranchPrefix(job.testBranch, queue.targetBranch, job.testRunId),
  };
  const timeoutSeconds = job.timeoutSeconds > 0 ? Math.min(job.timeoutSeconds, maxRunSeconds) : maxRunSeconds;
  return {
    testRunId: job.testRunId,
    queue,
    kind: job.kind,
    projected,
    runner: readRunner(job),
    timeoutMs: timeoutSeconds * 1000,
  };
}

/**
 * The git module names test branches `<prefix>/<target>/<run id>`, so replicas agree on the name
 * without being told; a branch the coordinator names must follow that shape.
 */
function testBranchPrefix(testBranch: string, targetBranch: string, testRunId: string): string {
  if (testBranch === "") return DEFAULT_TEST_BRANCH_PREFIX;
  const suffix = `/${targetBranch}/${testRunId}`;
  const prefix = testBranch.endsWith(suffix) ? testBranch.slice(0, -suffix.length) : "";
  if (prefix === "")
    throw new InvalidArgumentError(
      "testBranch",
      `must be <prefix>${suffix}, carrying the queue and the run id`,
    );
  assertBranchName("testBranch", testBranch);
  return prefix;
}

function readRunner(job: TestRunJob): TestRunner {
  switch (job.runner?.kind) {
    case RunnerKind.COMMAND: {
      const command = job.runner.command;
      if (command.trim() === "") throw new InvalidArgumentError("runner.command", "must not be empty");
      // The coordinator refuses these; a job that still carries one could never spawn its command.
      for (const [name, value] of Object.entries(job.runner.env))
        if (name.includes("=") || `${name}${value}`.includes("\0"))
          throw new InvalidArgumentError(`runner.env.${name}`, "must not contain '=' in its name or a NUL");
      return { kind: "command", command, junitGlobs: job.runner.junitGlobs, env: job.runner.env };
    }
    case RunnerKind.EXTERNAL:
      return { kind: "external" };
    default:
      throw new InvalidArgumentError("runner.kind", "must be COMMAND or EXTERNAL");
  }
}
