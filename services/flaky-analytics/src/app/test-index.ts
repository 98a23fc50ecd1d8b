import { NO_TREND, type RepositoryTrend } from "../domain/index.js";
import type { TestDocument } from "../store/documents.js";

/**
 * One repository's tests, held in memory: what list-failing-tests, the quarantine config and ingest
 * read. It changes only by whole uploads (apply swaps in every updated test at once, between two
 * awaits, so no reader ever sees half an upload) and by single-test annotations.
 *
 * `seq` is the last journal entry applied; entries since the last snapshot are counted so that the
 * owner knows when a new snapshot is due.
 */
export class TestIndex {
  private readonly tests = new Map<string, TestDocument>();
  /**
   * Ids of the tests with at least one failure time, sorted: the only candidates of a listing, in
   * the listing's order already (a test joins once, when it first fails). Beside each, its first
   * and last failure time, in flat arrays: most tests of a window are decided from those two
   * numbers without reaching for the test itself, which keeps an uncached listing fast.
   */
  private readonly everFailed: string[] = [];
  private readonly firstFailure: number[] = [];
  private readonly lastFailure: number[] = [];
  private appliedSeq: number;
  private runsPerHour: RepositoryTrend;
  private entriesSinceSnapshot = 0;
  private resultsSinceSnapshot = 0;

  constructor(
    readonly org: string,
    readonly repoKey: string,
    snapshotSeq: number,
    snapshot: Iterable<TestDocument> = [],
    trend: RepositoryTrend = NO_TREND,
  ) {
    this.appliedSeq = snapshotSeq;
    this.runsPerHour = trend;
    for (const test of snapshot) {
      this.tests.set(test._id, test);
      if (test.failureTimes.length > 0) this.everFailed.push(test._id);
    }
    this.everFailed.sort();
    for (const id of this.everFailed) {
      const times = this.tests.get(id)?.failureTimes ?? [];
      this.firstFailure.push(times[0] ?? 0);
      this.lastFailure.push(times[times.length - 1] ?? 0);
    }
  }

  get seq(): number {
    return this.appliedSeq;
  }

  /** The repository's runs and failures per hour (insights). */
  get trend(): RepositoryTrend {
    return this.runsPerHour;
  }

  get size(): number {
    return this.tests.size;
  }

  /** Journal entries and results applied since the last snapshot. */
  get journal(): { entries: number; results: number } {
    return { entries: this.entriesSinceSnapshot, results: this.resultsSinceSnapshot };
  }

  get(id: string): TestDocument | undefined {
    return this.tests.get(id);
  }

  values(): IterableIterator<TestDocument> {
    return this.tests.values();
  }

  /** Makes journal entry `seq` (with `results` case results) visible: every updated test at once. */
  apply(seq: number, updated: readonly TestDocument[], results: number, trend?: RepositoryTrend): void {
    for (const test of updated) this.put(test);
    if (trend !== undefined) this.runsPerHour = trend;
    this.appliedSeq = seq;
    this.entriesSinceSnapshot++;
    this.resultsSinceSnapshot += results;
  }

  /** Replaces one test (an annotation, a published status event); the caller keeps it a whole test. */
  replace(test: TestDocument): void {
    this.put(test);
  }

  snapshotTaken(seq: number): void {
    if (seq !== this.appliedSeq) return;
    this.entriesSinceSnapshot = 0;
    this.resultsSinceSnapshot = 0;
  }

  /** Ids of the tests with a failure in [start, end), sorted (the listing's stable order). */
  failingTestIds(start: number, end: number): string[] {
    const ids: string[] = [];
    for (let at = 0; at < this.everFailed.length; at++) {
      const first = this.firstFailure[at] ?? 0;
      const last = this.lastFailure[at] ?? 0;
      if (last < start || first >= end) continue;
      const id = this.everFailed[at] as string;
      // The first or the last failure falls in the window; otherwise look between them.
      if (first >= start || last < end) ids.push(id);
      else if (failedWithin(this.tests.get(id)?.failureTimes ?? [], start, end)) ids.push(id);
    }
    return ids;
  }

  private put(test: TestDocument): void {
    const known = this.tests.get(test._id);
    this.tests.set(test._id, test);
    const times = test.failureTimes;
    // Failure times only grow: a copy of a test that did not fail again shares its predecessor's.
    if (times.length === 0 || known?.failureTimes === times) return;
    const at = insertionPoint(this.everFailed, test._id);
    if (this.everFailed[at] !== test._id) {
      this.everFailed.splice(at, 0, test._id);
      this.firstFailure.splice(at, 0, 0);
      this.lastFailure.splice(at, 0, 0);
    }
    this.firstFailure[at] = times[0] ?? 0;
    this.lastFailure[at] = times[times.length - 1] ?? 0;
  }
}

/** The first position in the sorted `ids` not before `id` (the order of Array#sort on strings). */
function insertionPoint(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((ids[mid] ?? "") < id) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Whether the ascending `times` hold one in [start, end) (binary search for the first >= start). */
function failedWithin(times: readonly number[], start: number, end: number): boolean {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((times[mid] ?? 0) < start) low = mid + 1;
    else high = mid;
  }
  const first = times[low];
  return first !== undefined && first < end;
}
