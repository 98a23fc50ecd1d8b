import { canonicalRepository, formatRepository, type RepositoryRef } from "@mainline/contract";

/**
 * One spelling of a repository inside the store: canonical host, owner and name, case kept (test ids are a UUID
 * over the repository as written). Not the contract's `repositoryKey`, which folds case to say which repository
 * it is: this store keeps the spelling.
 */
export function repositorySpelling(repo: RepositoryRef): string {
  return formatRepository(canonicalRepository(repo));
}
