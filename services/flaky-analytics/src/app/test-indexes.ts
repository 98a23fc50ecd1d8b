import type { Logger } from "@mainline/kit/logging/index";
import type { TestDocument } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { applyUpload } from "./apply-upload.js";
import { TestIndex } from "./test-index.js";

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
 * The test indexes of every repository, loaded on first use: the current snapshot, then every journal
 * entry committed after it (a replay of the same fold ingest ran), then the annotations.
 */
export class TestIndexes {
  private readonly testIndexes = new Map<string, Promise<TestIndex>>();

  constructor(private readonly deps: { store: FlakyStore; logger: Logger; policy: SnapshotPolicy }) {}

  get(org: string, repoKey: string): Promise<TestIndex> {
    const key = `${org}\n${repoKey}`;
    let testIndex = this.testIndexes.get(key);
    if (testIndex === undefined) {
      testIndex = this.load(org, repoKey);
      this.testIndexes.set(key, testIndex);
      // A failed load (the store unavailable) is tried again by the next caller.
      testIndex.catch(() => {
        if (this.testIndexes.get(key) === testIndex) this.testIndexes.delete(key);
      });
    }
    return testIndex;
  }

  /** Forgets a repository's test index: the next use loads it again from the store. */
  unload(org: string, repoKey: string): void {
    this.testIndexes.delete(`${org}\n${repoKey}`);
  }

  /** Loads every repository that has stored tests (at start, so pending status events get published). */
  async loadAll(): Promise<TestIndex[]> {
    const { store } = this.deps;
    const repositories = [
      ...(await store.snapshots.repositories()),
      ...(await store.uploads.repositoriesWithEntries()),
    ];
    const keys = new Map(repositories.map((r) => [`${r.org}\n${r.repoKey}`, r]));
    const testIndexes: TestIndex[] = [];
    for (const { org, repoKey } of keys.values()) testIndexes.push(await this.get(org, repoKey));
    return testIndexes;
  }

  /** Snapshots the test index when its journal grew past the policy. Call it under the repository's lock. */
  async snapshotIfDue(testIndex: TestIndex, now: number): Promise<void> {
    const { entries, results } = testIndex.journal;
    if (entries < this.deps.policy.entries && results < this.deps.policy.results) return;
    await this.snapshot(testIndex, now);
  }

  async snapshot(testIndex: TestIndex, now: number): Promise<void> {
    const { org, repoKey, seq } = testIndex;
    const started = performance.now();
    await this.deps.store.snapshots.write(org, repoKey, seq, [...testIndex.values()], now);
    testIndex.snapshotTaken(seq);
    await this.deps.store.uploads.forget(org, repoKey, seq);
    this.deps.logger.debug(
      { org, repoKey, seq, tests: testIndex.size, ms: Math.round(performance.now() - started) },
      "snapshot taken",
    );
  }

  private async load(org: string, repoKey: string): Promise<TestIndex> {
    const { store } = this.deps;
    const head = await store.snapshots.current(org, repoKey);
    const testIndex = new TestIndex(
      org,
      repoKey,
      head?.seq ?? 0,
      head ? await store.snapshots.read(head) : [],
    );
    for (const { seq, entry, publishedEvents } of await store.uploads.entriesAfter(
      org,
      repoKey,
      testIndex.seq,
    )) {
      const applied = applyUpload(org, repoKey, entry, (id) => testIndex.get(id));
      const published = new Set(publishedEvents);
      const updated = applied.updated.map((test) =>
        test.pendingStatusEvent && published.has(test.pendingStatusEvent.eventId)
          ? withoutPendingEvent(test)
          : test,
      );
      testIndex.apply(seq, updated, entry.runs.length);
    }
    for (const annotation of await store.annotations.forRepository(org, repoKey)) {
      const test = testIndex.get(annotation.testId);
      if (test === undefined) continue;
      const { quarantineOverride: _o, ticketUrl: _t, ...rest } = test;
      testIndex.replace({
        ...rest,
        ...(annotation.quarantineOverride ? { quarantineOverride: annotation.quarantineOverride } : {}),
        ...(annotation.ticketUrl ? { ticketUrl: annotation.ticketUrl } : {}),
      });
    }
    await store.uploads.dropOrphanParts(org, repoKey, testIndex.seq);
    return testIndex;
  }
}

export function withoutPendingEvent(test: TestDocument): TestDocument {
  const { pendingStatusEvent: _published, ...rest } = test;
  return rest;
}
