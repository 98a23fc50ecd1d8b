import { canonicalRepository } from "../domain/index.js";
import type { RepositoryRef } from "../domain/index.js";

/** One spelling of a repository inside the store: canonical host, owner and name. */
export function repositoryKey(repo: RepositoryRef): string {
  const canonical = canonicalRepository(repo);
  return `${canonical.host}/${canonical.owner}/${canonical.name}`;
}

/** The sortable key of a failure hour: fixed-width hour so string order is time order. */
export function scopeHourKey(org: string, repoKey: string, hour: number): string {
  return `${org}\n${repoKey}\n${String(hour).padStart(15, "0")}`;
}
