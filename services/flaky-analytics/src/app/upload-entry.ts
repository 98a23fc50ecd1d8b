import type { FailureDetail, TestCaseResult } from "../domain/index.js";
import type { EntryRun, RepositoryDocument, TestIdentityFields, UploadEntry } from "../store/documents.js";
import type { TestIdCache } from "./test-id-cache.js";
import type { TestResultsUpload } from "./test-results-upload.js";

/**
 * Groups an upload's case results by test into runs. Runners that retry by repeating the
 * <testcase> (Gradle unmerged, pytest-rerunfailures) write one per attempt: those become attempts
 * of one run. Identity is kept for every run; uploadEntry drops it for tests already known.
 */
export function groupRuns(
  upload: TestResultsUpload,
  repoKey: string,
  results: readonly TestCaseResult[],
  ids: TestIdCache,
): Map<string, EntryRun & { identity: TestIdentityFields }> {
  const runs = new Map<string, EntryRun & { identity: TestIdentityFields }>();
  const idOf = ids.scope(upload.org, upload.repo, repoKey, upload.variant);
  for (const result of results) {
    const id = idOf(result);
    let run = runs.get(id);
    if (run === undefined) {
      run = { id, outcomes: [], failures: [], identity: identityOf(result) };
      runs.set(id, run);
    }
    for (const attempt of result.attempts) {
      run.outcomes.push(attempt.outcome);
      run.failures.push(failureMessage(attempt.failure) ?? null);
    }
  }
  return runs;
}

/** The journal entry of an upload: what it says, when, and under which repository settings. */
export function uploadEntry(
  upload: TestResultsUpload,
  ctx: {
    uploadId: string;
    runs: Iterable<EntryRun & { identity: TestIdentityFields }>;
    isKnown: (id: string) => boolean;
    settings: RepositoryDocument;
    at: number;
    now: number;
  },
): UploadEntry {
  const runs: EntryRun[] = [];
  for (const run of ctx.runs) {
    // Failure messages only for attempts that failed; the identity only for tests not seen before.
    const failures = run.failures.some((message) => message !== null) ? run.failures : [];
    runs.push(
      ctx.isKnown(run.id)
        ? { id: run.id, outcomes: run.outcomes, failures }
        : { id: run.id, outcomes: run.outcomes, failures, identity: run.identity },
    );
  }
  return {
    uploadId: ctx.uploadId,
    repo: upload.repo,
    commitSha: upload.commitSha,
    branch: upload.branch,
    ...(upload.prNumber !== undefined ? { prNumber: upload.prNumber } : {}),
    variant: upload.variant,
    context: upload.context,
    at: ctx.at,
    now: ctx.now,
    defaultBranch: ctx.settings.defaultBranch,
    status: ctx.settings.status,
    runs,
  };
}

function identityOf(result: TestCaseResult): TestIdentityFields {
  return {
    name: result.name,
    ...(result.file ? { file: result.file } : {}),
    ...(result.classname ? { classname: result.classname } : {}),
    ...(result.parent ? { parent: result.parent } : {}),
  };
}

function failureMessage(failure: FailureDetail | undefined): string | undefined {
  if (!failure) return undefined;
  return failure.message ?? failure.type ?? failure.body?.split("\n", 1)[0];
}
