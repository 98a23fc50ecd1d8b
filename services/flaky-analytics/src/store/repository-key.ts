import { canonicalRepository } from "../domain/index.js";
import type { RepositoryRef } from "../domain/index.js";

/** One spelling of a repository inside the store: canonical host, owner and name. */
export function repositoryKey(repo: RepositoryRef): string {
  const canonical = canonicalRepository(repo);
  return `${canonical.host}/${canonical.owner}/${canonical.name}`;
}

/** The repository a stored key spells: the host first, the name last, the owner (maybe with slashes) between. */
export function repositoryOfKey(key: string): RepositoryRef | undefined {
  const parts = key.split("/");
  if (parts.length < 3) return undefined;
  return { host: parts[0]!, owner: parts.slice(1, -1).join("/"), name: parts[parts.length - 1]! };
}
