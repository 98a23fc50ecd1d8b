/**
 * The last few computed insights of any repository, keyed by what decides them: organisation, repository, the
 * journal position (another upload, from any replica, changes the key) and the query's window. A page after
 * the first, the web page's live reloads and a second reader cost no pass over the tests.
 */
export class InsightsCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly size = 16) {}

  get(key: string, compute: () => T): T {
    const known = this.entries.get(key);
    if (known !== undefined) {
      // Most recently used last: the first key is the one to drop.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    const value = compute();
    this.entries.set(key, value);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }
}
