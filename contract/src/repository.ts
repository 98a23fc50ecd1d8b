/** The spec's `repo` object: which repository a request, a queue or a test belongs to. */
export interface RepositoryRef {
  host: string;
  owner: string;
  name: string;
}

/**
 * How a repository is written: trimmed, the host in lower case (a DNS name). Owner and name keep their case:
 * links, metric labels and flaky-analytics' test ids (a UUID over the repository as written, spec "Test id")
 * show it.
 */
export function canonicalRepository(repo: RepositoryRef): RepositoryRef {
  return { host: repo.host.trim().toLowerCase(), owner: repo.owner.trim(), name: repo.name.trim() };
}

/**
 * Which repository it is: code hosts resolve owner and name case-insensitively (Acme/App is acme/app), so two
 * spellings that differ only in case are one repository. The queue-coordinator keys its store by this.
 */
export function repositoryKey(repo: RepositoryRef): string {
  const { host, owner, name } = canonicalRepository(repo);
  return `${host}/${owner}/${name}`.toLowerCase();
}

export function sameRepository(a: RepositoryRef, b: RepositoryRef): boolean {
  return repositoryKey(a) === repositoryKey(b);
}
