import { canonicalRepository, formatRepository, type RepositoryRef } from "@mainline/contract";

/**
 * One spelling of a repository inside the store: canonical host, owner and name, case kept (test ids are a UUID
 * over the repository as written). Not the contract's `repositoryKey`, which folds case to say which repository
 * it is: this store keeps the spelling.
 */
export function repositorySpelling(repo: RepositoryRef): string {
  return formatRepository(canonicalRepository(repo));
}

/** The repository a stored key spells: the host first, the name last, the owner (maybe with slashes) between. */
export function repositoryOfKey(key: string): RepositoryRef | undefined {
  const parts = key.split("/");
  if (parts.length < 3) return undefined;
  return { host: parts[0]!, owner: parts.slice(1, -1).join("/"), name: parts[parts.length - 1]! };
}
