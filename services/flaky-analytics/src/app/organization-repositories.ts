import type { RepositoryRef } from "../domain/index.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { repositoryOfKey } from "../store/repository-key.js";

/**
 * The repositories of an organisation that have test results: those with a snapshot and those whose uploads
 * are still only in the journal (a repository's first uploads). Read from the store, not from this replica's
 * loaded test indexes, which hold only what this process has seen (and any name a reader merely asked for).
 */
export async function organizationRepositories(store: FlakyStore, org: string): Promise<RepositoryRef[]> {
  const keys = new Set<string>();
  for (const r of await store.snapshots.repositories(org)) keys.add(r.repoKey);
  for (const r of await store.uploads.repositoriesWithEntries(org)) keys.add(r.repoKey);
  return [...keys]
    .sort()
    .map(repositoryOfKey)
    .filter((r): r is RepositoryRef => r !== undefined);
}
