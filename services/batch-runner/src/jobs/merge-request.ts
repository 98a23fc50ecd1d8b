import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { QueueRef } from "@mainline/proto/common";
import type { MergeJob as MergeJobMessage } from "@mainline/proto/queue";
import type { MergeJob } from "../git/merge.js";
import { assertSecretName } from "../git/git-credentials.js";
import { assertBranchName, assertRemoteUrl, assertRunId, assertSha } from "../git/ref-names.js";

/** A MergeJob checked and translated into what the git module takes. */
export interface MergeRequest {
  readonly queue: QueueRef;
  readonly merge: MergeJob;
  readonly obsoleteTestBranches: readonly string[];
}

/** Throws InvalidArgumentError naming the field for a job that can never succeed. */
export function readMergeJob(job: MergeJobMessage): MergeRequest {
  assertRunId("mergeId", job.mergeId);
  const queue = job.queue;
  if (queue === undefined) throw new InvalidArgumentError("queue", "is required");
  assertBranchName("queue.targetBranch", queue.targetBranch);
  assertRemoteUrl("remoteUrl", job.remoteUrl);
  if (job.credentialsSecretName !== "") assertSecretName(job.credentialsSecretName);
  // The last PR's tested commit is where the target ends; tested_sha says so explicitly.
  const commitSha = job.testedSha !== "" ? job.testedSha : (job.pullRequests.at(-1)?.testedCommitSha ?? "");
  assertSha("testedSha", commitSha);
  if (job.testBranch !== "") assertBranchName("testBranch", job.testBranch);
  for (const branch of job.obsoleteTestBranches) assertBranchName("obsoleteTestBranches", branch);
  return {
    queue,
    merge: {
      remoteUrl: job.remoteUrl,
      ...(job.credentialsSecretName !== "" && { credentialsSecretName: job.credentialsSecretName }),
      ...(job.github && { githubInstallationId: job.github.installationId }),
      targetBranch: queue.targetBranch,
      mergeId: job.mergeId,
      commitSha,
      ...(job.testBranch !== "" && { testBranch: job.testBranch }),
      otherLanesMayMerge: job.otherLanesMayMerge,
    },
    obsoleteTestBranches: job.obsoleteTestBranches,
  };
}
