import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { QueueRef, RepoRef } from "@mainline/proto/common";
import { QUEUE_ADDRESS_MAX_BYTES, repositoryKey } from "@mainline/contract";

/** A queue is (organisation, repository, target branch); these keys name it in the store and on the bus. */
export interface QueueAddress {
  org: string;
  repo: RepoRef;
  targetBranch: string;
}

/** Host and owner/name compare case-insensitively, as code hosts treat them (kit's repository identity). */
export const repoKey = (repo: RepoRef): string => repositoryKey(repo);

export function queueKey(q: QueueAddress): string {
  return `${q.org}#${repoKey(q.repo)}#${q.targetBranch}`;
}

/** Bounds in UTF-8 bytes, the gateway's own (the contract's QUEUE_ADDRESS_MAX_BYTES, README "Limits"). */
export const MAX_BYTES = QUEUE_ADDRESS_MAX_BYTES;

/** Checks a QueueRef from a request, naming the missing field as the HTTP API spells it. */
export function queueAddress(ref: QueueRef | undefined): QueueAddress {
  if (!ref?.org) throw new InvalidArgumentError("org", "is required");
  return {
    org: required("org", ref.org, MAX_BYTES.org),
    repo: repoRef(ref.repo),
    targetBranch: required("targetBranch", ref.targetBranch, MAX_BYTES.targetBranch),
  };
}

export function repoRef(repo: RepoRef | undefined): RepoRef {
  if (!repo) throw new InvalidArgumentError("repo", "is required");
  return {
    host: required("repo.host", repo.host, MAX_BYTES.host),
    owner: required("repo.owner", repo.owner, MAX_BYTES.owner),
    name: required("repo.name", repo.name, MAX_BYTES.name),
  };
}

function required(field: string, value: string | undefined, maxBytes: number): string {
  if (value !== undefined && value.length > maxBytes * 4) {
    throw new InvalidArgumentError(field, `must be at most ${maxBytes} bytes (UTF-8)`);
  }
  const trimmed = value?.trim() ?? "";
  if (trimmed === "") throw new InvalidArgumentError(field, "must not be empty");
  if (Buffer.byteLength(trimmed, "utf8") > maxBytes)
    throw new InvalidArgumentError(field, `must be at most ${maxBytes} bytes (UTF-8)`);
  return trimmed;
}
