import type { GitHubAppClient, GitHubOctokit } from "@mainline/kit/github/index";
import type { QueueRef } from "@mainline/proto/common";
import type { MergeJob } from "@mainline/proto/queue";

/**
 * Stacked pull requests through GitHub's API (issue 28). GitHub merges a PR into its base branch, and a stacked
 * PR's base is the head branch of the PR under it: before the queue merges it, and once the PRs under it have
 * landed, its base becomes the queue's target, as GitHub's own stacks are retargeted.
 */
export interface RetargetScope {
  readonly github: GitHubAppClient;
  readonly octokit: GitHubOctokit;
  readonly owner: string;
  readonly repo: string;
  readonly target: string;
}

/** Moves PR `number` onto the target. */
export async function retarget(scope: RetargetScope, number: number): Promise<void> {
  const { github, octokit, owner, repo, target } = scope;
  await github.call(`retarget pull request #${number} onto ${target}`, async () => {
    await octokit.request("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", {
      owner,
      repo,
      pull_number: number,
      base: target,
    });
  });
}

/**
 * After a merge landed: the open PRs still based on the head branch of a PR that merged (stacked on it, not
 * queued with it) move onto the target, so they can be queued next. Returns the PRs moved, and those GitHub
 * refused with why: the merge stands either way, and such a PR waits BASE_BRANCH_MISMATCH as with plain git.
 */
export async function retargetRemaining(
  scope: RetargetScope,
  mergedHeads: readonly string[],
): Promise<{ moved: number[]; refused: string[] }> {
  const { github, octokit, owner, repo } = scope;
  const moved: number[] = [];
  const refused: string[] = [];
  for (const head of new Set(mergedHeads)) {
    try {
      const open = await github.call(`list the pull requests based on ${head}`, async () => {
        const { data } = await octokit.request("GET /repos/{owner}/{repo}/pulls", {
          owner,
          repo,
          state: "open",
          base: head,
          per_page: 100,
        });
        return data;
      });
      for (const pr of open.filter((p) => p.base.ref === head)) {
        await retarget(scope, pr.number);
        moved.push(pr.number);
      }
    } catch (error) {
      refused.push(`${head}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { moved, refused };
}

/**
 * A merge by git fast-forward through the GitHub App (MERGE_COMMIT): GitHub marks a PR merged when its head reaches
 * its base branch, so the stacked PRs of the merge are moved onto the target before the push.
 */
export async function retargetStackedBeforePush(
  github: GitHubAppClient,
  job: MergeJob,
  queue: QueueRef,
): Promise<void> {
  const stacked = job.pullRequests.filter((pr) => pr.stackedBaseBranch !== undefined);
  const installationId = job.github?.installationId;
  if (stacked.length === 0 || installationId === undefined || queue.repo === undefined) return;
  const scope = {
    github,
    octokit: github.installation(installationId),
    owner: queue.repo.owner,
    repo: queue.repo.name,
    target: queue.targetBranch,
  };
  for (const pr of stacked) await retarget(scope, pr.number);
}
