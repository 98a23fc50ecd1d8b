import { TargetMovedError, RemoteRefNotFoundError } from "./git-errors.js";
import { planLanding } from "./landing.js";
import { assertBranchName, assertRunId, assertSha } from "./ref-names.js";
import type { Mirror, RepositoryCache } from "./repository-cache.js";

export interface MergeJob {
  readonly remoteUrl: string;
  /** The connection's credentials, by secret name ("" or absent: none). */
  readonly credentialsSecretName?: string;
  /** The GitHub App installation whose token git authenticates with (instead of a secret). */
  readonly githubInstallationId?: number;
  readonly targetBranch: string;
  /** Names the merge in logs and results; a redelivery finds the tested PRs on the target and pushes nothing. */
  readonly mergeId: string;
  /** The tested commit to land: the last commit of the last PR being merged. */
  readonly commitSha: string;
  /** The test branch holding `commitSha`, fetched when this replica has not seen the commit. */
  readonly testBranch?: string;
  /** PARALLEL mode: other lanes' merges on the target are not a reason to re-test (see planLanding). */
  readonly otherLanesMayMerge?: boolean;
}

// Each failed push means the target moved in between; a few rounds cover concurrent lanes.
const MAX_PUSH_ATTEMPTS = 3;

export interface MergeResult {
  readonly mergeId: string;
  readonly targetBranch: string;
  /** The target's sha before this merge (equal to mergedSha when it had already landed). */
  readonly previousSha: string;
  /** The target's head after the merge: the tested commit, or its replay onto PRs merged meanwhile. */
  readonly mergedSha: string;
  /** True when the target already contained the tested PRs (a redelivered merge): nothing pushed. */
  readonly alreadyMerged: boolean;
}

/**
 * Lands a passing run on the target without force: each PR as its own commit(s), with the tree
 * that was tested (see planLanding for when the PRs ahead merged from their own runs, or other
 * lanes merged in PARALLEL mode). Anything else on the target is TargetMovedError, and the
 * coordinator restarts.
 */
export async function fastForwardTarget(cache: RepositoryCache, job: MergeJob): Promise<MergeResult> {
  assertBranchName("targetBranch", job.targetBranch);
  assertRunId("mergeId", job.mergeId);
  assertSha("commitSha", job.commitSha);
  if (job.testBranch !== undefined) assertBranchName("testBranch", job.testBranch);
  const targetRef = `refs/heads/${job.targetBranch}`;
  const mirror = await cache.open(job.remoteUrl, job.credentialsSecretName, job.githubInstallationId);

  return mirror.exclusive(async () => {
    await fetchTested(mirror, job);
    for (let attempt = 1; ; attempt++) {
      const current = await fetchTarget(mirror, targetRef);
      const landing = await planLanding(mirror, {
        testedSha: job.commitSha,
        targetSha: current,
        otherLanesMayMerge: job.otherLanesMayMerge ?? false,
      });
      if (landing.kind === "contained") return result(job, current, current, true);
      if (landing.kind === "moved")
        throw new TargetMovedError(job.targetBranch, current, job.commitSha, landing.reason);
      if ((await mirror.push(landing.tip, targetRef)) === "pushed")
        return result(job, current, landing.tip, false);
      // The target moved between our read and our push: a concurrent delivery of this merge or
      // another lane's merge. Planning again on the new head tells which.
      if (attempt === MAX_PUSH_ATTEMPTS)
        throw new TargetMovedError(
          job.targetBranch,
          current,
          job.commitSha,
          "it kept moving while we pushed",
        );
    }
  });
}

async function fetchTarget(mirror: Mirror, targetRef: string): Promise<string> {
  const onRemote = await mirror.lsRemote([targetRef]);
  if (!onRemote.has(targetRef)) throw new RemoteRefNotFoundError(targetRef);
  return (await mirror.fetch([targetRef])).get(targetRef)!;
}

async function fetchTested(mirror: Mirror, job: MergeJob): Promise<void> {
  if (await mirror.hasCommit(job.commitSha)) return;
  if (job.testBranch !== undefined) {
    const testRef = `refs/heads/${job.testBranch}`;
    if ((await mirror.lsRemote([testRef])).has(testRef)) await mirror.fetch([testRef]);
  }
  await mirror.ensureCommit(job.commitSha);
}

function result(job: MergeJob, previousSha: string, mergedSha: string, alreadyMerged: boolean): MergeResult {
  return { mergeId: job.mergeId, targetBranch: job.targetBranch, previousSha, mergedSha, alreadyMerged };
}
