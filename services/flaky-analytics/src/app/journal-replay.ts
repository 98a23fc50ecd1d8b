import type { AnnotationEntry, TestDocument } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import type { JournalEntry } from "../store/upload-journal.js";
import { applyUpload } from "./apply-upload.js";
import type { TestIndex } from "./test-index.js";

/**
 * How a replayed entry's status events are treated. At start ("load") the events not yet published
 * stay pending, for the start-up sweep; while following other replicas' entries ("follow") they are
 * the writer's to publish, and this replica leaves them out.
 */
export type ReplayMode = "load" | "follow";

/**
 * Applies the journal entries after the index's position, in order, as long as they follow on
 * from it; returns the test ids the replayed annotations reached. An upload id applied by an
 * earlier entry makes a later one a no-op (settled in the store, so every replica decides alike).
 */
export async function replayJournal(
  store: FlakyStore,
  testIndex: TestIndex,
  entries: readonly JournalEntry[],
  mode: ReplayMode,
): Promise<Set<string>> {
  const { org, repoKey } = testIndex;
  const annotated = new Set<string>();
  for (const journalEntry of entries) {
    const { seq } = journalEntry;
    if (seq !== testIndex.seq + 1) break;
    if (journalEntry.kind === "annotation") {
      const test = testIndex.get(journalEntry.annotation.testId);
      annotated.add(journalEntry.annotation.testId);
      testIndex.apply(seq, test ? [annotate(test, journalEntry.annotation)] : [], 0);
      continue;
    }
    const { entry, summary, appliedAt } = journalEntry;
    const settled = await store.uploads.settle(org, repoKey, seq, {
      uploadId: entry.uploadId,
      summary,
      appliedAt,
    });
    if (settled.seq !== seq) {
      testIndex.apply(seq, [], 0);
      continue;
    }
    const applied = applyUpload(org, repoKey, entry, (id) => testIndex.get(id), testIndex.trend);
    const published = new Set(settled.publishedEvents ?? []);
    const updated = applied.updated.map((test) =>
      test.pendingStatusEvent && (mode === "follow" || published.has(test.pendingStatusEvent.eventId))
        ? withoutPendingEvent(test)
        : test,
    );
    testIndex.apply(seq, updated, entry.runs.length, applied.trend);
  }
  return annotated;
}

/** The test with an annotation applied: a value sets the field, null clears it, absent leaves it. */
export function annotate(test: TestDocument, annotation: Omit<AnnotationEntry, "testId">): TestDocument {
  const next: TestDocument = { ...test };
  for (const field of ["quarantineOverride", "ticketUrl"] as const) {
    const value = annotation[field];
    if (value === null) delete next[field];
    else if (value !== undefined) (next as Record<typeof field, string>)[field] = value;
  }
  return next;
}

export function withoutPendingEvent(test: TestDocument): TestDocument {
  const { pendingStatusEvent: _published, ...rest } = test;
  return rest;
}
