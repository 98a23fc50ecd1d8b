import type { Principal } from "./principal.js";

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * Recently authenticated tokens, by token hash, for a short time. Every API call authenticates, and a store
 * lookup per call is most of the gateway's own work on a read; a few seconds of caching removes it. The price
 * is bounded: a token revoked through this gateway is dropped at once (see `forgetToken`); one revoked through
 * another replica keeps working here for at most `ttlMs`. Unknown tokens are never cached, so a flood of bad
 * tokens cannot fill it, and its size is capped anyway.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every forgetToken, so a lookup that raced a revocation does not cache what it read before. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string): Principal | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.principal;
  }

  /** Call before the store lookup whose result will be `set`. */
  lookupStarted(): number {
    return this.generation;
  }

  set(hash: string, principal: Principal, lookupStartedAt: number): void {
    if (this.ttlMs <= 0 || lookupStartedAt !== this.generation) return;
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { principal, expiresAt: this.now() + this.ttlMs });
  }

  forgetToken(tokenId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries)
      if (entry.principal.tokenId === tokenId) this.entries.delete(hash);
  }
}
