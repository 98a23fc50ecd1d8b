import type { Logger } from "@mainline/kit/logging/index";
import type { TestDocument } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { applyUpload } from "./apply-upload.js";
import { TestLedger } from "./test-ledger.js";

/**
 * When a repository's journal is folded into a new snapshot. Bigger means fewer snapshot writes
 * during ingest, and a longer replay when the service starts.
 */
export interface SnapshotPolicy {
  results: number;
  entries: number;
}

export const DEFAULT_SNAPSHOT_POLICY: Readonly<SnapshotPolicy> = Object.freeze({
  results: 500_000,
  entries: 1_000,
});

/**
 * The ledgers of every repository, loaded on first use: the current snapshot, then every journal
 * entry committed after it (a replay of the same fold ingest ran), then the annotations.
 */
export class TestLedgers {
  private readonly ledgers = new Map<string, Promise<TestLedger>>();

  constructor(private readonly deps: { store: FlakyStore; logger: Logger; policy: SnapshotPolicy }) {}

  get(org: string, repoKey: string): Promise<TestLedger> {
    const key = `${org}\n${repoKey}`;
    let ledger = this.ledgers.get(key);
    if (ledger === undefined) {
      ledger = this.load(org, repoKey);
      this.ledgers.set(key, ledger);
      // A failed load (the store unavailable) is tried again by the next caller.
      ledger.catch(() => {
        if (this.ledgers.get(key) === ledger) this.ledgers.delete(key);
      });
    }
    return ledger;
  }

  /** Forgets a repository's ledger: the next use loads it again from the store. */
  unload(org: string, repoKey: string): void {
    this.ledgers.delete(`${org}\n${repoKey}`);
  }

  /** Loads every repository that has stored tests (at start, so pending status events get published). */
  async loadAll(): Promise<TestLedger[]> {
    const { store } = this.deps;
    const repositories = [
      ...(await store.snapshots.repositories()),
      ...(await store.uploads.repositoriesWithEntries()),
    ];
    const keys = new Map(repositories.map((r) => [`${r.org}\n${r.repoKey}`, r]));
    const ledgers: TestLedger[] = [];
    for (const { org, repoKey } of keys.values()) ledgers.push(await this.get(org, repoKey));
    return ledgers;
  }

  /** Snapshots the ledger when its journal grew past the policy. Call it under the repository's lock. */
  async snapshotIfDue(ledger: TestLedger, now: number): Promise<void> {
    const { entries, results } = ledger.journal;
    if (entries < this.deps.policy.entries && results < this.deps.policy.results) return;
    await this.snapshot(ledger, now);
  }

  async snapshot(ledger: TestLedger, now: number): Promise<void> {
    const { org, repoKey, seq } = ledger;
    const started = performance.now();
    await this.deps.store.snapshots.write(org, repoKey, seq, [...ledger.values()], now);
    ledger.snapshotTaken(seq);
    await this.deps.store.uploads.forget(org, repoKey, seq);
    this.deps.logger.debug(
      { org, repoKey, seq, tests: ledger.size, ms: Math.round(performance.now() - started) },
      "snapshot taken",
    );
  }

  private async load(org: string, repoKey: string): Promise<TestLedger> {
    const { store } = this.deps;
    const head = await store.snapshots.current(org, repoKey);
    const ledger = new TestLedger(org, repoKey, head?.seq ?? 0, head ? await store.snapshots.read(head) : []);
    for (const { seq, entry, publishedEvents } of await store.uploads.entriesAfter(
      org,
      repoKey,
      ledger.seq,
    )) {
      const applied = applyUpload(org, repoKey, entry, (id) => ledger.get(id));
      const published = new Set(publishedEvents);
      const updated = applied.updated.map((test) =>
        test.pendingStatusEvent && published.has(test.pendingStatusEvent.eventId)
          ? withoutPendingEvent(test)
          : test,
      );
      ledger.apply(seq, updated, entry.runs.length);
    }
    for (const annotation of await store.annotations.forRepository(org, repoKey)) {
      const test = ledger.get(annotation.testId);
      if (test === undefined) continue;
      const { quarantineOverride: _o, ticketUrl: _t, ...rest } = test;
      ledger.replace({
        ...rest,
        ...(annotation.quarantineOverride ? { quarantineOverride: annotation.quarantineOverride } : {}),
        ...(annotation.ticketUrl ? { ticketUrl: annotation.ticketUrl } : {}),
      });
    }
    await store.uploads.dropOrphanParts(org, repoKey, ledger.seq);
    return ledger;
  }
}

export function withoutPendingEvent(test: TestDocument): TestDocument {
  const { pendingStatusEvent: _published, ...rest } = test;
  return rest;
}
