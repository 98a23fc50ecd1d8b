import { wireRunKind } from "@mainline/contract";
import type { QueueRef } from "@mainline/proto/common";
import {
  type GitHubAccess,
  MergeJob,
  MergeMethod,
  RunnerKind,
  TestBranchCleanupJob,
  TestRunJob,
  TestRunKind,
} from "@mainline/proto/queue";
import type { Decision, PlannerState, PullRequestFacts } from "../domain/index.js";
import type { RepositoryConnection } from "../store/repository-connections.js";
import type { TestRunRecord } from "../store/test-run-records.js";
import { testBranchName } from "./run-ids.js";

type StartTestRun = Extract<Decision, { type: "START_TEST_RUN" }>;
type Merge = Extract<Decision, { type: "MERGE" }>;

/** What every job for the batch-runner carries: the queue, how to reach its repository, and GitHub access if any. */
export interface JobTarget {
  queue: QueueRef;
  connection: RepositoryConnection;
  /** The state after the step (entries of PRs still queued). */
  state: PlannerState;
  github: (mergeThroughApi: boolean) => { github?: GitHubAccess };
}

/** The batch-runner's order to build the projected branch of a run and test it. */
export function testRunJob(
  { queue, connection, state, github }: JobTarget,
  d: StartTestRun,
  runId: string,
  testBranch: string,
  now: Date,
): TestRunJob {
  const entry = (n: number) => state.prs[String(n)];
  return {
    testRunId: runId,
    queue,
    kind: TestRunKind[wireRunKind(d.kind)],
    pullRequests: [
      ...d.dependentPrs.map((n) => ({ number: n, underTest: false })),
      ...d.prs.map((n) => ({ number: n, underTest: true })),
    ].map(({ number, underTest }) => ({
      number,
      underTest,
      headSha: entry(number)?.facts?.headSha ?? "",
      title: entry(number)?.facts?.title ?? "",
      author: entry(number)?.facts?.author ?? "",
    })),
    mergeMethod: MergeMethod[state.settings.mergeMethod],
    testBranch,
    pullRefPattern: connection.pullRefPattern,
    remoteUrl: connection.remoteUrl,
    credentialsSecretName: connection.credentialsSecretName,
    runner: {
      kind: RunnerKind[connection.runner.kind],
      command: connection.runner.command,
      junitGlobs: connection.runner.junitGlobs,
      env: connection.runner.env ?? {},
    },
    // 0 disables the queue's timeout; the runner still needs a bound, a day is the longest CI we wait for.
    timeoutSeconds: (state.settings.testingTimeoutMinutes || 24 * 60) * 60,
    createdAt: now,
    ...github(false),
  };
}

/** Deletes a cancelled run's test branch (an external CI stops when its branch goes). */
export function testBranchCleanupJob({ queue, connection }: JobTarget, runId: string): TestBranchCleanupJob {
  return {
    cleanupId: runId,
    queue,
    remoteUrl: connection.remoteUrl,
    credentialsSecretName: connection.credentialsSecretName,
    testBranches: [testBranchName(queue.targetBranch, runId)],
  };
}

/** The batch-runner's order to land the PRs of a passed run on the target, each as its own commit. */
export function mergeJob(
  { queue, connection, state, github }: JobTarget,
  d: Merge,
  mergeId: string,
  record: TestRunRecord | undefined,
): MergeJob {
  return {
    mergeId,
    queue,
    remoteUrl: connection.remoteUrl,
    credentialsSecretName: connection.credentialsSecretName,
    expectedTargetSha: "",
    pullRequests: d.prs.map((n) => ({
      number: n,
      testedCommitSha: record?.commits[String(n)] ?? "",
      headSha: state.prs[String(n)]?.facts?.headSha ?? "",
      title: state.prs[String(n)]?.facts?.title ?? "",
      ...stackedBase(state.prs[String(n)]?.facts),
    })),
    testedSha: lastTestedCommit(record, d.prs),
    testBranch: record?.testBranch ?? "",
    obsoleteTestBranches: record?.testBranch ? [record.testBranch] : [],
    otherLanesMayMerge: state.settings.mode === "PARALLEL",
    mergeMethod: MergeMethod[state.settings.mergeMethod],
    // GitHub shows a PR as merged when its head commit reaches the target: a git fast-forward of a merge
    // commit does that; squashed or rebased commits (new shas) only GitHub's own merge does.
    ...github(state.settings.mergeMethod !== "MERGE_COMMIT"),
  };
}

/** A stacked PR's base on the code host (issue 28), for the batch-runner to retarget before an API merge. */
function stackedBase(facts: PullRequestFacts | null | undefined): { stackedBaseBranch?: string } {
  return facts?.stackedOn === undefined ? {} : { stackedBaseBranch: facts.baseBranch };
}

/** The tip to fast-forward to: the commit of the last PR merged (each PR is its own commit). */
function lastTestedCommit(record: TestRunRecord | undefined, prs: readonly number[]): string {
  const last = prs[prs.length - 1];
  return (last !== undefined ? record?.commits[String(last)] : undefined) ?? record?.testBranchSha ?? "";
}
