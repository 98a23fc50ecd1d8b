import { sameRepository, type RepositoryRef } from "@mainline/contract";

/** One merge queue as the metrics see it: an organisation's repository on its host, and the target branch. */
export interface QueueIdentity {
  org: string;
  host: string;
  owner: string;
  name: string;
  branch: string;
}

/** A repository of an organisation (the `repo` + `repoHost` filter of the HTTP API). */
export type RepositoryScope = RepositoryRef;

/** Which series one request may see: always one organisation, optionally one repository of it. */
export interface MetricsScope {
  org: string;
  repo?: RepositoryScope;
}

export function queueKeyOf(q: QueueIdentity): string {
  // Each part is encoded, so no branch or owner can make two queues share a key.
  return [q.org, q.host, q.owner, q.name, q.branch].map(encodeURIComponent).join("|");
}

export function pullRequestKeyOf(q: QueueIdentity, pr: number): string {
  return `${queueKeyOf(q)}|${pr}`;
}

/** The `repo` label: "owner/name", as the compat-notes catalogue writes it. */
export function repoLabelOf(repo: RepositoryScope): string {
  return `${repo.owner}/${repo.name}`;
}

export function inScope(item: { org: string } & RepositoryScope, scope: MetricsScope): boolean {
  if (item.org !== scope.org) return false;
  return scope.repo === undefined || sameRepository(item, scope.repo);
}
