import type { Logger } from "@mainline/kit/logging/index";
import { readJUnitReport } from "../domain/index.js";
import type { IgnoredTestCase, TestCaseResult } from "../domain/index.js";
import type { TestDocument, UploadDocument, UploadSummary } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { repositorySpelling } from "../store/repository-key.js";
import { JournalPositionTakenError } from "../store/upload-journal.js";
import { applyUpload } from "./apply-upload.js";
import type { KeyedLock } from "./keyed-lock.js";
import type { TestIdCache } from "./test-id-cache.js";
import type { TestIndexes } from "./test-indexes.js";
import { contentUploadId, validateUpload } from "./test-results-upload.js";
import type { TestResultsUpload } from "./test-results-upload.js";
import type { TestIndex } from "./test-index.js";
import { groupRuns, uploadEntry } from "./upload-entry.js";
import type { GroupedRun } from "./upload-entry.js";

/** The response lists this many ignored test cases at most; `ignored` counts them all. */
const MAX_IGNORED_LISTED = 100;
/** Positions lost to other replicas before an upload gives up (each loss means another upload went in). */
const MAX_APPEND_ATTEMPTS = 50;

export interface IngestResult extends Required<UploadSummary> {
  uploadId: string;
  /** Tests whose status changed and now wait in the outbox for publication. */
  changed: TestDocument[];
}

export interface IngestDeps {
  store: FlakyStore;
  testIndexes: TestIndexes;
  lock: KeyedLock;
  testIds: TestIdCache;
  logger: Logger;
  now: () => number;
}

/**
 * Applies one upload: every JUnit file is parsed before anything is stored, so a malformed file
 * fails the whole upload with nothing written (the error names the request's field, `junit[i]`), while
 * a test case that cannot be read is left out and reported, and the rest is kept. The upload is folded into the repository's tests
 * in memory, committed as one journal entry, and only then made visible: an upload is stored
 * whole or not at all, and its id makes a second application a no-op.
 */
export async function ingestResults(deps: IngestDeps, upload: TestResultsUpload): Promise<IngestResult> {
  validateUpload(upload);
  const results: TestCaseResult[] = [];
  const ignored: IgnoredTestCase[] = [];
  upload.junitXml.forEach((xml, index) => {
    const report = readJUnitReport(xml, { field: `junit[${index}]` });
    for (const result of report.results) results.push(result);
    for (const testCase of report.ignored) ignored.push(testCase);
  });
  const repoKey = repositorySpelling(upload.repo);
  const uploadId = upload.uploadId ?? contentUploadId(upload, repoKey);
  const summary = {
    ...summarise(upload.junitXml.length, results),
    ignored: ignored.length,
    ignoredTestcases: ignored.slice(0, MAX_IGNORED_LISTED),
  };
  const runs = groupRuns(upload, repoKey, results, deps.testIds);

  return deps.lock.run(`${upload.org}\n${repoKey}`, async () => {
    let lost = 0;
    for (let attempt = 1; ; attempt++) {
      const testIndex = await deps.testIndexes.currentLocked(upload.org, repoKey, lost);
      const applied = await deps.store.uploads.find(upload.org, uploadId);
      if (applied) return { uploadId, ignored: 0, ignoredTestcases: [], ...applied.summary, changed: [] };
      try {
        return await commit(deps, upload, { uploadId, repoKey, runs, summary, testIndex });
      } catch (error) {
        // Another replica appended first: catch up with its entry (it may be this very upload) and try again.
        if (!(error instanceof JournalPositionTakenError) || attempt >= MAX_APPEND_ATTEMPTS) throw error;
        lost = error.seq;
      }
    }
  });
}

/** Appends the upload at the next position of the journal, then shows it. Call it under the repository's lock. */
async function commit(
  deps: IngestDeps,
  upload: TestResultsUpload,
  ctx: {
    uploadId: string;
    repoKey: string;
    runs: Map<string, GroupedRun>;
    summary: Omit<Required<UploadSummary>, "newTests">;
    testIndex: TestIndex;
  },
): Promise<IngestResult> {
  const { uploadId, repoKey, testIndex } = ctx;
  const now = deps.now();
  const settings = await deps.store.repositories.get(upload.org, upload.repo);
  const entry = uploadEntry(upload, {
    uploadId,
    runs: ctx.runs.values(),
    isKnown: (id) => testIndex.get(id) !== undefined,
    settings,
    at: upload.runStartedAt ?? now,
    now,
  });
  const { updated, changed, newTests, trend } = applyUpload(
    upload.org,
    repoKey,
    entry,
    (id) => testIndex.get(id),
    testIndex.trend,
  );
  const final = { ...ctx.summary, newTests };
  const seq = testIndex.seq + 1;
  let settled: UploadDocument;
  try {
    await deps.store.uploads.appendUpload(upload.org, repoKey, seq, entry, final, now);
    settled = await deps.store.uploads.settle(upload.org, repoKey, seq, {
      uploadId,
      summary: final,
      appliedAt: now,
    });
  } catch (error) {
    if (error instanceof JournalPositionTakenError) throw error;
    // Whether the commit reached the store is unknown (a lost acknowledgement): the next use
    // reloads the test index from what the store holds instead of trusting memory.
    deps.testIndexes.unload(upload.org, repoKey);
    throw error;
  }
  if (settled.seq !== seq) {
    // An earlier entry carries the same upload id (a crash between its commit and settling it).
    testIndex.apply(seq, [], 0);
    return { uploadId, ignored: 0, ignoredTestcases: [], ...settled.summary, changed: [] };
  }
  testIndex.apply(seq, updated, entry.runs.length, trend);
  try {
    // Other replicas read the head to know how far to catch up before they answer.
    await deps.store.heads.advance(upload.org, repoKey, seq);
  } catch (error) {
    deps.logger.warn(
      { err: error, org: upload.org, repoKey, seq },
      "journal head not moved; replicas see the upload with the next one",
    );
  }
  try {
    await deps.testIndexes.snapshotIfDue(testIndex, now);
  } catch (error) {
    // The upload is committed; the journal simply stays longer until a snapshot succeeds.
    deps.logger.warn({ err: error, org: upload.org, repoKey }, "snapshot failed; will try again");
  }
  return { uploadId, ...final, changed };
}

function summarise(files: number, results: readonly TestCaseResult[]): UploadSummary {
  const summary: UploadSummary = {
    files,
    results: results.length,
    passed: 0,
    failed: 0,
    skipped: 0,
    newTests: 0,
  };
  for (const result of results) {
    if (result.outcome === "passed") summary.passed++;
    else if (result.outcome === "skipped") summary.skipped++;
    else summary.failed++;
  }
  return summary;
}
