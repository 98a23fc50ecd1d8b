import { MERGE_METHODS, githubMergeMethod, wireWord } from "@mainline/contract";
import type { GitHubAppClient } from "@mainline/kit/github/index";
import type { MergeJob } from "@mainline/proto/queue";
import { InvalidArgumentError, MainlineError, type ErrorCode } from "@mainline/kit/errors/index";
import { TargetMovedError } from "../git/git-errors.js";
import { assertSha } from "../git/ref-names.js";
import type { Mirror, RepositoryCache } from "../git/repository-cache.js";
import { retarget, retargetRemaining } from "./github-retarget.js";
import type { MergeRequest } from "./merge-request.js";

export interface ApiMergeResult {
  readonly previousSha: string;
  readonly mergedSha: string;
  /** The target's head after each PR, in order. */
  readonly landedShas: string[];
  readonly alreadyMerged: boolean;
  /** Open PRs stacked on the merged ones, moved onto the target (issue 28), and those GitHub refused, with why. */
  readonly retargeted: readonly number[];
  readonly retargetRefused: readonly string[];
}

/**
 * Some PRs of the merge are merged on GitHub and the next one was refused (a rate limit that outlasted the job's
 * retries, a PR closed or pushed to meanwhile): the target holds what did land, which the result reports rather
 * than failing the whole merge. Retryable as its cause is: a redelivery skips the PRs already merged.
 */
export class PartialMergeError extends MainlineError {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  override readonly retryAfterMs: number | undefined;
  constructor(
    /** The PRs merged on GitHub, in queue order. */
    readonly mergedPrs: readonly number[],
    /** The target's head after each of them. */
    readonly landedShas: readonly string[],
    /** The PR GitHub refused. */
    readonly refusedPr: number,
    readonly reason: unknown,
  ) {
    const why = reason instanceof Error ? reason.message : String(reason);
    super(
      `merged ${mergedPrs.map((n) => `#${n}`).join(", ")} through the GitHub API, then #${refusedPr} was refused: ${why}`,
      { cause: reason },
    );
    this.code = reason instanceof MainlineError ? reason.code : "INTERNAL";
    this.retryable = reason instanceof MainlineError ? reason.retryable : true;
    this.retryAfterMs = reason instanceof MainlineError ? reason.retryAfterMs : undefined;
  }
}

/**
 * Lands a passing run through GitHub's merge API, one PR at a time in queue order, for merge methods a git
 * fast-forward would leave GitHub showing as closed rather than merged (squash, rebase) and for protected
 * branches that take no direct push. Each call names the PR's tested head sha, so GitHub refuses a PR pushed to
 * since. Before the first PR the target must hold exactly the tree the run was built on (PRs ahead that GitHub
 * merged with commits of its own have that tree); anything else moved the target, and the queue re-tests. A
 * redelivery skips the PRs GitHub already shows as merged.
 */
export async function mergeThroughGitHub(
  github: GitHubAppClient,
  cache: RepositoryCache,
  request: MergeRequest,
  job: MergeJob,
): Promise<ApiMergeResult> {
  const installationId = job.github?.installationId;
  if (installationId === undefined) throw new InvalidArgumentError("github", "is required for an API merge");
  const word = wireWord(job.mergeMethod);
  if (word === undefined)
    throw new InvalidArgumentError(
      "mergeMethod",
      `must be ${MERGE_METHODS.slice(0, -1).join(", ")} or ${MERGE_METHODS.at(-1)}`,
    );
  const method = githubMergeMethod(word);
  const repo = request.queue.repo;
  if (!repo) throw new InvalidArgumentError("queue.repo", "is required");
  const { owner, name } = repo;
  for (const pr of job.pullRequests) {
    assertSha("pullRequests.headSha", pr.headSha);
    assertSha("pullRequests.testedCommitSha", pr.testedCommitSha);
  }
  const octokit = github.installation(installationId);
  const target = request.merge.targetBranch;
  const scope = { github, octokit, owner, repo: name, target };
  const mirror = await cache.open(
    request.merge.remoteUrl,
    request.merge.credentialsSecretName,
    installationId,
  );

  const pull = (number: number) =>
    github.call(`read pull request #${number}`, async () => {
      const { data } = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
        owner: repo.owner,
        repo: repo.name,
        pull_number: number,
      });
      return data;
    });

  const states = await Promise.all(job.pullRequests.map((pr) => pull(pr.number)));
  const previousSha = await mirror.exclusive(async () => {
    const head = await targetHead(mirror, target);
    if (states.some((s) => s.merged)) return head;
    // What the run tested sits on the parent of the first PR's tested commit: the target must hold that tree.
    await ensureTested(mirror, request);
    const first = job.pullRequests[0]!.testedCommitSha;
    const [now, tested] = await Promise.all([
      mirror.git.text(["rev-parse", `${head}^{tree}`]),
      mirror.git.text(["rev-parse", `${first}^^{tree}`]),
    ]);
    if (now !== tested)
      throw new TargetMovedError(
        target,
        head,
        request.merge.commitSha,
        "its content is not what the run was built on",
      );
    return head;
  });

  const landedShas: string[] = [];
  const mergedPrs: number[] = [];
  for (const [i, pr] of job.pullRequests.entries()) {
    const state = states[i]!;
    if (state.merged) {
      landedShas.push(state.merge_commit_sha ?? "");
      mergedPrs.push(pr.number);
      continue;
    }
    try {
      // A stacked PR (issue 28) is based on the head branch of the PR merged just before it.
      if (pr.stackedBaseBranch !== undefined && state.base?.ref !== target) await retarget(scope, pr.number);
      landedShas.push(await mergeOne(pr, state.state));
      mergedPrs.push(pr.number);
    } catch (error) {
      if (mergedPrs.length === 0) throw error;
      throw new PartialMergeError(
        mergedPrs,
        landedShas.filter((s) => s !== ""),
        pr.number,
        error,
      );
    }
  }
  // PRs stacked on the merged ones but not queued with them (issue 28) move onto the target too. A reply that
  // does not name the PR's head branch moves nothing.
  const heads = states.flatMap((s) => (s.head?.ref ? [s.head.ref] : []));
  const remaining = await retargetRemaining(scope, heads);
  return {
    previousSha,
    mergedSha: landedShas.at(-1) ?? previousSha,
    landedShas: landedShas.filter((s) => s !== ""),
    alreadyMerged: states.every((s) => s.merged),
    retargeted: remaining.moved,
    retargetRefused: remaining.refused,
  };

  async function mergeOne(pr: MergeJob["pullRequests"][number], state: string): Promise<string> {
    if (state !== "open")
      throw new TargetMovedError(
        target,
        previousSha,
        request.merge.commitSha,
        `pull request #${pr.number} was closed`,
      );
    const merged = await github.call(`merge pull request #${pr.number}`, async () => {
      const { data } = await octokit.request("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", {
        owner,
        repo: name,
        pull_number: pr.number,
        sha: pr.headSha,
        merge_method: method,
        ...(pr.title && method !== "rebase"
          ? { commit_title: `${pr.title} (#${pr.number})`.slice(0, 1024) }
          : {}),
      });
      return data;
    });
    return merged.sha;
  }
}

async function targetHead(mirror: Mirror, branch: string): Promise<string> {
  const ref = `refs/heads/${branch}`;
  return (await mirror.fetch([ref])).get(ref)!;
}

async function ensureTested(mirror: Mirror, request: MergeRequest): Promise<void> {
  if (await mirror.hasCommit(request.merge.commitSha)) return;
  if (request.merge.testBranch) await mirror.fetch([`refs/heads/${request.merge.testBranch}`]);
  await mirror.ensureCommit(request.merge.commitSha);
}
