import { setTimeout as sleep } from "node:timers/promises";
import { UnavailableError } from "@mainline/kit/errors/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { FlakyStore } from "../store/flaky-store.js";
import { annotate, replayJournal } from "./journal-replay.js";
import type { KeyedLock } from "./keyed-lock.js";
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

/** How long a reader waits for another replica's committed entry to reach this one before giving up. */
const CATCH_UP_MS = 5_000;
const CATCH_UP_POLL_MS = 10;

/**
 * The test indexes of every repository, loaded on first use: the current snapshot, then every journal
 * entry committed after it (a replay of the same fold ingest ran). Every replica appends to the same
 * journals, so an index is brought up to the journal's head before it answers (`current`): a reader
 * sees every upload any replica acknowledged before the read began.
 */
export class TestIndexes {
  private readonly testIndexes = new Map<string, Promise<TestIndex>>();

  constructor(
    private readonly deps: { store: FlakyStore; logger: Logger; policy: SnapshotPolicy; lock: KeyedLock },
  ) {}

  /** The index as this replica holds it (it may lag other replicas' entries: see `current`). */
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

  /**
   * The read barrier: the index with every journal entry committed before the call applied. Costs
   * one key-value read when this replica is already there (the usual case).
   */
  async current(org: string, repoKey: string): Promise<TestIndex> {
    let head: number;
    try {
      head = await this.deps.store.heads.latest(org, repoKey);
    } catch (error) {
      // NATS out of reach: answer from memory (what this replica has applied) rather than not at all.
      this.deps.logger.warn({ err: error, org, repoKey }, "journal head unknown; answering from memory");
      return this.get(org, repoKey);
    }
    const testIndex = await this.get(org, repoKey);
    if (testIndex.seq >= head) return testIndex;
    return this.deps.lock.run(`${org}\n${repoKey}`, () => this.catchUp(org, repoKey, head));
  }

  /**
   * As `current`, for a caller holding the repository's lock (ingest, before it appends), and at
   * least up to `atLeast` (a position the caller knows was committed).
   */
  async currentLocked(org: string, repoKey: string, atLeast = 0): Promise<TestIndex> {
    const head = await this.deps.store.heads.latest(org, repoKey);
    return this.catchUp(org, repoKey, Math.max(head, atLeast));
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
    const taken = await this.deps.store.snapshots.write(org, repoKey, seq, [...testIndex.values()], now, {
      trend: [...testIndex.trend],
    });
    // Not taken: another replica's snapshot is as far; either way this replica's journal is covered.
    testIndex.snapshotTaken(seq);
    if (taken) await this.deps.store.uploads.forget(org, repoKey, seq);
    this.deps.logger.debug(
      { org, repoKey, seq, taken, tests: testIndex.size, ms: Math.round(performance.now() - started) },
      "snapshot",
    );
  }

  /** Under the repository's lock: applies what the journal holds after the index, up to `head` at least. */
  private async catchUp(org: string, repoKey: string, head: number): Promise<TestIndex> {
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      let testIndex = await this.get(org, repoKey);
      const entries = await this.deps.store.uploads.entriesAfter(org, repoKey, testIndex.seq);
      const first = entries[0];
      if (first === undefined ? head > testIndex.seq : first.seq > testIndex.seq + 1) {
        // Another replica snapshotted and dropped the entries between (or every entry up to the head): start
        // again from its snapshot.
        const snapshot = await this.deps.store.snapshots.current(org, repoKey);
        if (snapshot !== null && snapshot.seq > testIndex.seq) {
          this.unload(org, repoKey);
          testIndex = await this.get(org, repoKey);
        }
      } else {
        await replayJournal(this.deps.store, testIndex, entries, "follow");
      }
      if (testIndex.seq >= head) return testIndex;
      if (Date.now() > deadline) {
        throw new UnavailableError(
          `${org}/${repoKey}: this replica applied its journal up to entry ${testIndex.seq} of ${head}; try again`,
        );
      }
      // An entry another replica committed is on its way to this one's copy of the store.
      await sleep(CATCH_UP_POLL_MS);
    }
  }

  private async load(org: string, repoKey: string): Promise<TestIndex> {
    const { store } = this.deps;
    const head = await store.snapshots.current(org, repoKey);
    const testIndex = new TestIndex(
      org,
      repoKey,
      head?.seq ?? 0,
      head ? await store.snapshots.read(head) : [],
      head?.trend ?? [],
    );
    const entries = await store.uploads.entriesAfter(org, repoKey, testIndex.seq);
    const annotated = await replayJournal(store, testIndex, entries, "load");
    if (head?.annotationsJournaled) return testIndex;
    // Annotations set before they went through the journal: their own collection holds them.
    for (const annotation of await store.annotations.forRepository(org, repoKey)) {
      const test = testIndex.get(annotation.testId);
      if (test === undefined || annotated.has(annotation.testId)) continue;
      testIndex.replace(
        annotate(test, {
          quarantineOverride: annotation.quarantineOverride ?? null,
          ticketUrl: annotation.ticketUrl ?? null,
        }),
      );
    }
    return testIndex;
  }
}
