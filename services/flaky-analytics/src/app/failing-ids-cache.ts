const MAX_ENTRIES = 64;

/**
 * The sorted failing-test ids of recent listings. Paging through one listing asks for the same
 * window again and again; while no upload reached the repository the answer is the same, so
 * only the first page pays for the range scan. Any ingest into the repository invalidates it.
 */
export class FailingIdsCache {
  private readonly generations = new Map<string, number>();
  private readonly entries = new Map<string, { generation: number; ids: string[] }>();

  /** Called after every write that can change which tests failed in a repository. */
  invalidate(repoScope: string): void {
    this.generations.set(repoScope, (this.generations.get(repoScope) ?? 0) + 1);
  }

  async get(repoScope: string, start: number, end: number, load: () => Promise<string[]>): Promise<string[]> {
    const key = `${repoScope}\n${start}\n${end}`;
    const generation = this.generations.get(repoScope) ?? 0;
    const cached = this.entries.get(key);
    if (cached && cached.generation === generation) return cached.ids;
    const ids = await load();
    // Only keep it if no ingest happened while it was loading.
    if ((this.generations.get(repoScope) ?? 0) === generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { generation, ids });
    }
    return ids;
  }
}
