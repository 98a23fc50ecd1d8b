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

/**
 * `host/owner/name` as written, case kept: how people read and type a repository, how the web page's addresses
 * and flaky-analytics' store spell it (over the canonical form there, so one repository has one spelling).
 */
export function formatRepository(repo: RepositoryRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`;
}

/**
 * Reads a repository as people write it: `host/owner/name`, or its web address (`https://`, `.git`, a trailing
 * slash). The owner may hold slashes (nested groups, as GitLab has them and the API accepts): the host is the
 * first part, the name the last. Undefined when a part is empty or holds white space.
 */
export function parseRepository(text: string): RepositoryRef | undefined {
  const path = text
    .trim()
    .replace(/^https?:\/\//, "")
    .replace(/\.git$/, "")
    .replace(/\/+$/, "");
  const parts = path.split("/");
  if (parts.length < 3 || parts.some((part) => part === "" || /\s/.test(part))) return undefined;
  return { host: parts[0]!, owner: parts.slice(1, -1).join("/"), name: parts[parts.length - 1]! };
}

/** How an error message names the accepted form. */
export const REPOSITORY_FORMAT_RULE = "host/owner/name, e.g. github.com/acme/app";
