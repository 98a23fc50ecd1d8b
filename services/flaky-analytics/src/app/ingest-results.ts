import {
  EMPTY_EVIDENCE,
  addRunToBuckets,
  judgeStatus,
  observeTest,
  parseJUnitXml,
  pruneBuckets,
  recordFailure,
  testId,
} from "../domain/index.js";
import type { FailureDetail, TestAttempt, TestCaseResult, TestObservation } from "../domain/index.js";
import type { RepositoryDocument, TestDocument, UploadSummary } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { repositoryKey } from "../store/repository-key.js";
import type { KeyedLock } from "./keyed-lock.js";
import { contentUploadId, validateUpload } from "./test-results-upload.js";
import type { TestResultsUpload } from "./test-results-upload.js";

export interface IngestResult extends UploadSummary {
  uploadId: string;
  /** Tests whose status changed and now wait in the outbox for publication. */
  changed: TestDocument[];
}

/** One test's part of an upload: its case results folded into one run (reruns are attempts). */
interface TestRun {
  id: string;
  first: TestCaseResult;
  attempts: TestAttempt[];
}

const RECENT_UPLOADS_KEPT = 20;
const WRITE_CONCURRENCY = 32;

/**
 * Applies one upload: every JUnit file is parsed before anything is stored, so a malformed file
 * fails the whole upload with nothing written. Then each test's document is folded forward
 * (evidence, status, hour buckets, failure groups) and its failure hours recorded.
 */
export async function ingestResults(
  deps: { store: FlakyStore; lock: KeyedLock; now: () => number },
  upload: TestResultsUpload,
): Promise<IngestResult> {
  validateUpload(upload);
  const results = upload.junitXml.flatMap((xml, index) =>
    parseJUnitXml(xml, { field: `junit_xml[${index}]` }),
  );
  const repoKey = repositoryKey(upload.repo);
  const uploadId = upload.uploadId ?? contentUploadId(upload, repoKey);
  const summary = summarise(upload.junitXml.length, results);
  const runs = groupByTest(upload, results);

  return deps.lock.run(`${upload.org}\n${repoKey}`, async () => {
    const applied = await deps.store.uploads.find(upload.org, uploadId);
    if (applied) return { uploadId, ...applied.summary, changed: [] };

    const now = deps.now();
    const at = upload.runStartedAt ?? now;
    const settings = await deps.store.repositories.get(upload.org, upload.repo);
    const existing = await deps.store.tests.findByIds(upload.org, repoKey, [...runs.keys()]);
    const changed: TestDocument[] = [];
    let newTests = 0;
    await forEachLimited([...runs.values()], WRITE_CONCURRENCY, async (run) => {
      const before = existing.get(run.id);
      // A redelivered upload that died half-way: the tests it already reached are skipped.
      if (before?.recentUploads.includes(uploadId)) return;
      if (before === undefined) newTests++;
      const doc = foldRun(before, run, { upload, repoKey, settings, at, now, uploadId });
      if (doc.failed) await deps.store.failureHours.recordFailure(upload.org, repoKey, run.id, at);
      await deps.store.tests.save(doc.test);
      if (doc.test.pendingStatusEvent && doc.test.pendingStatusEvent !== before?.pendingStatusEvent) {
        changed.push(doc.test);
      }
    });
    const final = { ...summary, newTests };
    await deps.store.uploads.record(upload.org, repoKey, uploadId, final, now);
    return { uploadId, ...final, changed };
  });
}

function foldRun(
  before: TestDocument | undefined,
  run: TestRun,
  ctx: {
    upload: TestResultsUpload;
    repoKey: string;
    settings: RepositoryDocument;
    at: number;
    now: number;
    uploadId: string;
  },
): { test: TestDocument; failed: boolean } {
  const { upload, settings, at } = ctx;
  const outcomes = run.attempts.map((attempt) => attempt.outcome);
  const failed = outcomes.some((outcome) => outcome === "failed" || outcome === "error");
  const ran = outcomes.some((outcome) => outcome !== "skipped");
  const test: TestDocument = before
    ? { ...before }
    : {
        ...identityOf(run, upload, ctx.repoKey),
        status: judgeStatus(undefined, EMPTY_EVIDENCE, settings.status, at).status,
        evidence: { ...EMPTY_EVIDENCE },
        buckets: [],
        failureGroups: [],
        firstSeenAt: at,
        lastSeenAt: at,
        recentUploads: [],
      };
  test.recentUploads = [...test.recentUploads, ctx.uploadId].slice(-RECENT_UPLOADS_KEPT);
  test.lastSeenAt = Math.max(test.lastSeenAt, at);
  // Spec rule 15: bisection runs are no flakiness data at all, not even failure figures.
  const counts = upload.context !== "bisection" && ran;
  if (!counts) return { test, failed: false };

  const observation: TestObservation = {
    at,
    commitSha: upload.commitSha,
    context: upload.context,
    onTargetBranch: upload.context === "ci" && upload.branch === settings.defaultBranch,
    attempts: outcomes,
  };
  const decision = observeTest(
    { evidence: test.evidence, status: before?.status },
    observation,
    settings.status,
  );
  test.evidence = decision.evidence;
  test.status = decision.status;
  if (decision.changed) {
    test.pendingStatusEvent = {
      eventId: `test-status:${run.id}:${decision.status.value}:${decision.status.timestamp}`,
      from: before?.status.value,
      to: decision.status,
    };
  }
  test.buckets = pruneBuckets(
    addRunToBuckets(test.buckets, { at, failed, pullRequest: upload.prNumber }),
    Math.max(ctx.now, at),
  );
  for (const attempt of run.attempts) {
    if (attempt.outcome === "failed" || attempt.outcome === "error") {
      test.failureGroups = recordFailure(test.failureGroups, failureMessage(attempt.failure), at);
    }
  }
  return { test, failed };
}

function identityOf(run: TestRun, upload: TestResultsUpload, repoKey: string) {
  const { first } = run;
  return {
    _id: run.id,
    org: upload.org,
    repoKey,
    repo: upload.repo,
    name: first.name,
    variant: upload.variant,
    ...(first.file ? { file: first.file } : {}),
    ...(first.classname ? { classname: first.classname } : {}),
    ...(first.parent ? { parent: first.parent } : {}),
  };
}

/** Runners that retry by repeating the <testcase> (Gradle unmerged, pytest-rerunfailures) write one per attempt. */
function groupByTest(upload: TestResultsUpload, results: readonly TestCaseResult[]): Map<string, TestRun> {
  const runs = new Map<string, TestRun>();
  for (const result of results) {
    const id = testId({
      org: upload.org,
      repo: upload.repo,
      file: result.file,
      classname: result.classname,
      parent: result.parent,
      name: result.name,
      variant: upload.variant,
    });
    const run = runs.get(id);
    if (run) run.attempts.push(...result.attempts);
    else runs.set(id, { id, first: result, attempts: [...result.attempts] });
  }
  return runs;
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

function failureMessage(failure: FailureDetail | undefined): string | undefined {
  if (!failure) return undefined;
  return failure.message ?? failure.type ?? failure.body?.split("\n", 1)[0];
}

async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
