import { canonicalRepository } from "../domain/index.js";
import type { RepositoryRef } from "../domain/index.js";

/** One spelling of a repository inside the store: canonical host, owner and name. */
export function repositoryKey(repo: RepositoryRef): string {
  const canonical = canonicalRepository(repo);
  return `${canonical.host}/${canonical.owner}/${canonical.name}`;
}
