/** The spec's `repo` object: which repository a request or a test belongs to. */
export interface RepositoryRef {
  host: string;
  owner: string;
  name: string;
}

/** One canonical spelling per repository; host names are case-insensitive, owner and name are not everywhere. */
export function canonicalRepository(repo: RepositoryRef): RepositoryRef {
  return { host: repo.host.trim().toLowerCase(), owner: repo.owner.trim(), name: repo.name.trim() };
}
