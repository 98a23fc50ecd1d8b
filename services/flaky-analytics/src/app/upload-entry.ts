import type { FailureDetail, TestCaseResult } from "../domain/index.js";
import type { EntryRun, RepositoryDocument, TestIdentityFields, UploadEntry } from "../store/documents.js";
import type { TestIdCache } from "./test-id-cache.js";
import type { TestResultsUpload } from "./test-results-upload.js";

/** One test's case results in an upload, folded into one run (reruns are attempts). */
export interface GroupedRun {
  id: string;
  outcomes: EntryRun["outcomes"];
  /** Allocated at the first failed attempt: most runs have none. */
  failures: EntryRun["failures"] | undefined;
  /** The first case result: the test's identity, if the repository does not know it yet. */
  first: TestCaseResult;
  /** The case results' time, every attempt included. */
  durationMs: number;
}

/**
 * Groups an upload's case results by test into runs. Runners that retry by repeating the
 * <testcase> (Gradle unmerged, pytest-rerunfailures) write one per attempt: those become attempts
 * of one run.
 */
export function groupRuns(
  upload: TestResultsUpload,
  repoKey: string,
  results: readonly TestCaseResult[],
  ids: TestIdCache,
): Map<string, GroupedRun> {
  const runs = new Map<string, GroupedRun>();
  const idOf = ids.scope(upload.org, upload.repo, repoKey, upload.variant);
  for (const result of results) {
    const id = idOf(result);
    let run = runs.get(id);
    if (run === undefined) {
      run = { id, outcomes: [], failures: undefined, first: result, durationMs: 0 };
      runs.set(id, run);
    }
    run.durationMs += result.durationMs;
    for (const attempt of result.attempts) {
      const message = failureMessage(attempt.failure);
      if (message !== undefined) {
        run.failures ??= run.outcomes.map(() => null);
        run.failures.push(message);
      } else if (run.failures !== undefined) {
        run.failures.push(null);
      }
      run.outcomes.push(attempt.outcome);
    }
  }
  return runs;
}

const NO_FAILURES: EntryRun["failures"] = [];

/** The journal entry of an upload: what it says, when, and under which repository settings. */
export function uploadEntry(
  upload: TestResultsUpload,
  ctx: {
    uploadId: string;
    runs: Iterable<GroupedRun>;
    isKnown: (id: string) => boolean;
    settings: RepositoryDocument;
    at: number;
    now: number;
  },
): UploadEntry {
  const runs: EntryRun[] = [];
  // One copy of each identity string per upload: the tests of one class share their file and class name.
  const copies = new Map<string, string>();
  for (const run of ctx.runs) {
    // Failure messages only for runs with a failure; the identity only for tests not seen before.
    const failures = run.failures ?? NO_FAILURES;
    const entryRun: EntryRun = ctx.isKnown(run.id)
      ? { id: run.id, outcomes: run.outcomes, failures }
      : { id: run.id, outcomes: run.outcomes, failures, identity: identityOf(run.first, copies) };
    const retryMs = retriedFailureMs(run);
    if (retryMs > 0) entryRun.retryMs = retryMs;
    runs.push(entryRun);
  }
  return {
    uploadId: ctx.uploadId,
    repo: upload.repo,
    commitSha: upload.commitSha,
    branch: upload.branch,
    ...(upload.prNumber !== undefined ? { prNumber: upload.prNumber } : {}),
    ...(upload.impactedPrNumbers?.length ? { impactedPrNumbers: [...upload.impactedPrNumbers] } : {}),
    variant: upload.variant,
    context: upload.context,
    at: ctx.at,
    now: ctx.now,
    defaultBranch: ctx.settings.defaultBranch,
    status: ctx.settings.status,
    runs,
  };
}

/**
 * The time of the failed attempts that were run again (every attempt but the last): reports give one duration
 * per case result, so each attempt is taken to last its share of it.
 */
function retriedFailureMs(run: GroupedRun): number {
  const attempts = run.outcomes.length;
  if (attempts < 2) return 0;
  let retried = 0;
  for (let i = 0; i < attempts - 1; i++) {
    const outcome = run.outcomes[i];
    if (outcome === "failed" || outcome === "error") retried++;
  }
  return Math.round((run.durationMs * retried) / attempts);
}

function identityOf(result: TestCaseResult, copies: Map<string, string>): TestIdentityFields {
  const copy = (text: string) => {
    let known = copies.get(text);
    if (known === undefined) copies.set(text, (known = owned(text)));
    return known;
  };
  return {
    name: owned(result.name),
    ...(result.file ? { file: copy(result.file) } : {}),
    ...(result.classname ? { classname: copy(result.classname) } : {}),
    ...(result.parent ? { parent: copy(result.parent) } : {}),
  };
}

function failureMessage(failure: FailureDetail | undefined): string | undefined {
  if (!failure) return undefined;
  const message = failure.message ?? failure.type ?? failure.body?.split("\n", 1)[0];
  return message === undefined ? undefined : owned(message);
}

/**
 * A copy of `text` that owns its characters. The JUnit parser's strings are slices of the whole report, and
 * a test keeps its identity (and a failure group its summary) in memory: one slice kept the upload's XML,
 * megabytes, alive for as long as the test lived. JSON keeps every code unit, lone surrogates included.
 */
function owned(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
