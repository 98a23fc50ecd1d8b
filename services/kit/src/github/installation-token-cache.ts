/**
 * Installation tokens for @octokit/auth-app's `cache` option. Its default cache keeps a token 59 minutes whatever
 * GitHub said; this one reads the token's own expires_at (the third "|" field of the value auth-app stores) and
 * drops it `refreshBeforeMs` before then, so a call never goes out with a token about to expire, however long
 * GitHub (or Enterprise Server's configuration) made it live.
 */
export class InstallationTokenCache {
  private readonly entries = new Map<string, string>();

  constructor(
    private readonly refreshBeforeMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
    /** One entry per installation and permission set; a bound keeps a misbehaving caller from growing it forever. */
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    const expiresAt = Date.parse(value.split("|")[2] ?? "");
    if (!Number.isFinite(expiresAt) || expiresAt - this.refreshBeforeMs <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return value;
  }

  set(key: string, value: string): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }
}
