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
import { pullRequestsLanded, readProjectedCommits } from "./pr-trailer.js";
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
import type { Git } from "./git.js";
import type { Mirror, RepositoryCache } from "./repository-cache.js";

export interface ProjectedBranchJob {
  readonly remoteUrl: string;
  /** The connection's credentials, by secret name ("" or absent: none). */
  readonly credentialsSecretName?: string;
  /** The GitHub App installation whose token git authenticates with (instead of a secret). */
  readonly githubInstallationId?: number;
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
  const mirror = await cache.open(job.remoteUrl, job.credentialsSecretName, job.githubInstallationId);

  return mirror.exclusive(async () => {
    const onRemote = await mirror.lsRemote([testRef, targetRef, ...pullRefs]);
    const existing = onRemote.get(testRef);
    if (existing) return readExisting(mirror, job, testBranch, onRemote.has(targetRef));
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
    const landed = await pullRequestsLanded(mirror.git, baseSha, aheadOnly(job));
    const worktreePath = await mirror.addWorktree(baseSha);
    let tip = baseSha;
    try {
      const worktree = mirror.git.at(worktreePath);
      for (const [i, pr] of job.pullRequests.entries()) {
        // A PR ahead that is already on the base would land a second, empty copy (or conflict
        // with what merged after it), so it is only ever applied when the base lacks it.
        if (!landed.has(pr.number)) {
          const before = tip;
          tip = await applyPullRequest(worktree, pr, heads[i]!, job.mergeMethod);
          if (pr.aheadOnly === true && (await sameTree(worktree, before, tip))) {
            await worktree.run(["reset", "--quiet", "--hard", before]);
            tip = before;
          }
        }
        commitsByPr[pr.number] = tip;
      }
    } finally {
      await mirror.removeWorktree(worktreePath);
    }

    // A rejection means another delivery of this job pushed first; its branch is the result.
    if ((await mirror.push(tip, testRef)) === "rejected") return readExisting(mirror, job, testBranch, true);
    return { testBranch, testBranchSha: tip, baseSha, commitsByPr, reused: false };
  });
}

async function readExisting(
  mirror: Mirror,
  job: ProjectedBranchJob,
  testBranch: string,
  targetOnRemote: boolean,
): Promise<ProjectedBranch> {
  const testRef = `refs/heads/${testBranch}`;
  const targetRef = `refs/heads/${job.targetBranch}`;
  const fetched = await mirror.fetch(targetOnRemote ? [testRef, targetRef] : [testRef]);
  const tip = fetched.get(testRef)!;
  const prNumbers = job.pullRequests.map((pr) => pr.number);
  const mayBeAbsent = new Set(aheadOnly(job));
  // Reading down to the target (or the named base) keeps a base commit that names a skipped PR
  // from being read as that PR's commit; a target that moved far away falls back to trailers only.
  const read =
    (await readProjectedCommits(mirror.git, tip, prNumbers, {
      mayBeAbsent,
      below: job.baseSha ?? fetched.get(targetRef),
    })) ?? (await readProjectedCommits(mirror.git, tip, prNumbers, { mayBeAbsent }));
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

function aheadOnly(job: ProjectedBranchJob): number[] {
  return job.pullRequests.filter((pr) => pr.aheadOnly === true).map((pr) => pr.number);
}

async function sameTree(worktree: Git, a: string, b: string): Promise<boolean> {
  const [treeA, treeB] = await Promise.all(
    [a, b].map((sha) => worktree.text(["rev-parse", `${sha}^{tree}`])),
  );
  return treeA === treeB;
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
