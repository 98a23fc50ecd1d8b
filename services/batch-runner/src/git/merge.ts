import { TargetMovedError, RemoteRefNotFoundError } from "./git-errors.js";
import { assertBranchName, assertRunId, assertSha } from "./ref-names.js";
import type { Mirror, RepositoryCache } from "./repository-cache.js";

export interface MergeJob {
  readonly remoteUrl: string;
  /** The connection's credentials, by secret name ("" or absent: none). */
  readonly credentialsSecretName?: string;
  readonly targetBranch: string;
  /** Names the merge in logs and results; redelivery is made harmless by the ancestry check. */
  readonly mergeId: string;
  /** The tested commit to land: the last commit of the last PR being merged. */
  readonly commitSha: string;
  /** The test branch holding `commitSha`, fetched when this replica has not seen the commit. */
  readonly testBranch?: string;
}

export interface MergeResult {
  readonly mergeId: string;
  readonly targetBranch: string;
  /** The target's sha before this merge (equal to mergedSha when it had already landed). */
  readonly previousSha: string;
  readonly mergedSha: string;
  /** True when the target already contained the commit (a redelivered merge): nothing pushed. */
  readonly alreadyMerged: boolean;
}

/**
 * Fast-forwards the target branch to a tested commit, so each PR lands as the commit it was
 * tested as. Never forces: if the target is no longer an ancestor of the tested commit, the
 * tested state is stale and TargetMovedError tells the coordinator to restart.
 */
export async function fastForwardTarget(cache: RepositoryCache, job: MergeJob): Promise<MergeResult> {
  assertBranchName("targetBranch", job.targetBranch);
  assertRunId("mergeId", job.mergeId);
  assertSha("commitSha", job.commitSha);
  if (job.testBranch !== undefined) assertBranchName("testBranch", job.testBranch);
  const targetRef = `refs/heads/${job.targetBranch}`;
  const mirror = await cache.open(job.remoteUrl, job.credentialsSecretName);

  return mirror.exclusive(async () => {
    const current = await fetchTarget(mirror, targetRef);
    const ancestry = await decide(mirror, job, current);
    if (ancestry === "contained") return result(job, current, current, true);
    if (ancestry === "moved") throw new TargetMovedError(job.targetBranch, current, job.commitSha);

    if ((await mirror.push(job.commitSha, targetRef)) === "pushed")
      return result(job, current, job.commitSha, false);
    // The target moved between our read and our push; a concurrent delivery may have landed it.
    const now = await fetchTarget(mirror, targetRef);
    if ((await decide(mirror, job, now)) === "contained") return result(job, now, now, true);
    throw new TargetMovedError(job.targetBranch, now, job.commitSha);
  });
}

async function fetchTarget(mirror: Mirror, targetRef: string): Promise<string> {
  const onRemote = await mirror.lsRemote([targetRef]);
  if (!onRemote.has(targetRef)) throw new RemoteRefNotFoundError(targetRef);
  return (await mirror.fetch([targetRef])).get(targetRef)!;
}

async function decide(
  mirror: Mirror,
  job: MergeJob,
  targetSha: string,
): Promise<"contained" | "fast-forward" | "moved"> {
  if (!(await mirror.hasCommit(job.commitSha))) {
    if (job.testBranch !== undefined) {
      const testRef = `refs/heads/${job.testBranch}`;
      if ((await mirror.lsRemote([testRef])).has(testRef)) await mirror.fetch([testRef]);
    }
    await mirror.ensureCommit(job.commitSha);
  }
  if (await mirror.isAncestor(job.commitSha, targetSha)) return "contained";
  // Any target the tested commit contains is safe to fast-forward from, including one a
  // previous delivery of this merge already moved part of the way.
  return (await mirror.isAncestor(targetSha, job.commitSha)) ? "fast-forward" : "moved";
}

function result(job: MergeJob, previousSha: string, mergedSha: string, alreadyMerged: boolean): MergeResult {
  return { mergeId: job.mergeId, targetBranch: job.targetBranch, previousSha, mergedSha, alreadyMerged };
}
