import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { QueueRef, RepoRef } from "@mainline/proto/common";

/** A queue is (organisation, repository, target branch); these keys name it in the store and on the bus. */
export interface QueueAddress {
  org: string;
  repo: RepoRef;
  targetBranch: string;
}

/** Host and owner/name compare case-insensitively, as code hosts treat them. */
export function repoKey(repo: RepoRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();
}

export function queueKey(q: QueueAddress): string {
  return `${q.org}#${repoKey(q.repo)}#${q.targetBranch}`;
}

/** Checks a QueueRef from a request, naming the missing field as the HTTP API spells it. */
export function queueAddress(ref: QueueRef | undefined): QueueAddress {
  if (!ref?.org) throw new InvalidArgumentError("org", "is required");
  return { org: ref.org, repo: repoRef(ref.repo), targetBranch: required("targetBranch", ref.targetBranch) };
}

export function repoRef(repo: RepoRef | undefined): RepoRef {
  if (!repo) throw new InvalidArgumentError("repo", "is required");
  return {
    host: required("repo.host", repo.host),
    owner: required("repo.owner", repo.owner),
    name: required("repo.name", repo.name),
  };
}

function required(field: string, value: string | undefined): string {
  const trimmed = value?.trim() ?? "";
  if (trimmed === "") throw new InvalidArgumentError(field, "must not be empty");
  return trimmed;
}
