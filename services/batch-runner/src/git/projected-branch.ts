import { InvalidArgumentError } from "@mainline/kit/errors/index";
import {
  applyPullRequest,
  MERGE_METHODS,
  type MergeMethod,
  type PullRequestToApply,
} from "./apply-pull-request.js";
import {
  PullRequestHeadMismatchError,
  RemoteRefNotFoundError,
  TestBranchMismatchError,
} from "./git-errors.js";
import { readProjectedCommits } from "./pr-trailer.js";
import {
  assertBranchName,
  assertPullRequestNumber,
  assertRunId,
  assertSha,
  DEFAULT_PULL_REF_PATTERN,
  DEFAULT_TEST_BRANCH_PREFIX,
  pullRequestRef,
  testBranchName,
} from "./ref-names.js";
import type { Mirror, RepositoryCache } from "./repository-cache.js";

export interface ProjectedBranchJob {
  readonly remoteUrl: string;
  /** The connection's credentials, by secret name ("" or absent: none). */
  readonly credentialsSecretName?: string;
  readonly targetBranch: string;
  readonly testRunId: string;
  readonly mergeMethod: MergeMethod;
  /** The PRs ahead in the lane, then the PR(s) under test, in the order they would merge. */
  readonly pullRequests: readonly PullRequestToApply[];
  /** Start here instead of the target's head (e.g. a bisection step on a known base). */
  readonly baseSha?: string;
  readonly pullRefPattern?: string;
  readonly testBranchPrefix?: string;
}

export interface ProjectedBranch {
  readonly testBranch: string;
  readonly testBranchSha: string;
  readonly baseSha: string;
  /** Each PR's last commit on the test branch: merging up to it lands exactly the tested state. */
  readonly commitsByPr: Readonly<Record<number, string>>;
  /** True when the test branch already existed (a redelivered job) and nothing was pushed. */
  readonly reused: boolean;
}

/**
 * Builds the projected future state of the target branch and pushes it to the run's test
 * branch. Idempotent by test-run id: when the test branch is already on the remote, its
 * recorded result is returned and nothing is built or pushed.
 */
export async function buildProjectedBranch(
  cache: RepositoryCache,
  job: ProjectedBranchJob,
): Promise<ProjectedBranch> {
  validate(job);
  const testBranch = testBranchName(
    job.testBranchPrefix ?? DEFAULT_TEST_BRANCH_PREFIX,
    job.targetBranch,
    job.testRunId,
  );
  const testRef = `refs/heads/${testBranch}`;
  const targetRef = `refs/heads/${job.targetBranch}`;
  const pattern = job.pullRefPattern ?? DEFAULT_PULL_REF_PATTERN;
  const pullRefs = job.pullRequests.map((pr) => pullRequestRef(pattern, pr.number));
  const mirror = await cache.open(job.remoteUrl, job.credentialsSecretName);

  return mirror.exclusive(async () => {
    const onRemote = await mirror.lsRemote([testRef, targetRef, ...pullRefs]);
    const existing = onRemote.get(testRef);
    if (existing) return readExisting(mirror, job, testBranch);
    if (!onRemote.has(targetRef)) throw new RemoteRefNotFoundError(targetRef);
    job.pullRequests.forEach((pr, i) => {
      if (!onRemote.has(pullRefs[i]!)) throw new RemoteRefNotFoundError(pullRefs[i]!, pr.number);
    });

    // The fetched shas, not ls-remote's, are what gets built: a PR pushed in between is caught here.
    const fetched = await mirror.fetch([targetRef, ...pullRefs]);
    const heads = job.pullRequests.map((pr, i) => {
      const head = fetched.get(pullRefs[i]!)!;
      if (pr.expectedHeadSha !== undefined && pr.expectedHeadSha !== head) {
        throw new PullRequestHeadMismatchError(pr.number, pr.expectedHeadSha, head);
      }
      return head;
    });
    const baseSha = job.baseSha ?? fetched.get(targetRef)!;
    await mirror.ensureCommit(baseSha);

    const commitsByPr: Record<number, string> = {};
    const worktreePath = await mirror.addWorktree(baseSha);
    let tip = baseSha;
    try {
      const worktree = mirror.git.at(worktreePath);
      for (const [i, pr] of job.pullRequests.entries()) {
        tip = await applyPullRequest(worktree, pr, heads[i]!, job.mergeMethod);
        commitsByPr[pr.number] = tip;
      }
    } finally {
      await mirror.removeWorktree(worktreePath);
    }

    // A rejection means another delivery of this job pushed first; its branch is the result.
    if ((await mirror.push(tip, testRef)) === "rejected") return readExisting(mirror, job, testBranch);
    return { testBranch, testBranchSha: tip, baseSha, commitsByPr, reused: false };
  });
}

async function readExisting(
  mirror: Mirror,
  job: ProjectedBranchJob,
  testBranch: string,
): Promise<ProjectedBranch> {
  const testRef = `refs/heads/${testBranch}`;
  const tip = (await mirror.fetch([testRef])).get(testRef)!;
  const prNumbers = job.pullRequests.map((pr) => pr.number);
  const read = await readProjectedCommits(mirror.git, tip, prNumbers);
  if (!read) throw new TestBranchMismatchError(testBranch, `expected commits of PRs ${prNumbers.join(", ")}`);
  if (job.baseSha !== undefined && read.baseSha !== job.baseSha) {
    throw new TestBranchMismatchError(testBranch, `built on ${read.baseSha}, job names base ${job.baseSha}`);
  }
  return {
    testBranch,
    testBranchSha: tip,
    baseSha: read.baseSha,
    commitsByPr: read.commitsByPr,
    reused: true,
  };
}

function validate(job: ProjectedBranchJob): void {
  assertBranchName("targetBranch", job.targetBranch);
  assertRunId("testRunId", job.testRunId);
  if (!MERGE_METHODS.includes(job.mergeMethod))
    throw new InvalidArgumentError("mergeMethod", `must be one of ${MERGE_METHODS.join(", ")}`);
  if (job.pullRequests.length === 0)
    throw new InvalidArgumentError("pullRequests", "must name at least one pull request");
  const seen = new Set<number>();
  for (const pr of job.pullRequests) {
    assertPullRequestNumber("pullRequests.number", pr.number);
    if (seen.has(pr.number)) throw new InvalidArgumentError("pullRequests", `names #${pr.number} twice`);
    seen.add(pr.number);
    if (pr.expectedHeadSha !== undefined) assertSha("pullRequests.expectedHeadSha", pr.expectedHeadSha);
  }
  if (job.baseSha !== undefined) assertSha("baseSha", job.baseSha);
}
