import { InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import {
  Codeowners,
  DEFAULT_STATUS_SETTINGS,
  quarantineConfig,
  resolveStatusSettings,
} from "../domain/index.js";
import type {
  QuarantineCandidate,
  QuarantineConfig,
  QuarantineOverride,
  RepositoryRef,
  StatusSettings,
} from "../domain/index.js";
import type { RepositoryDocument, TestDocument } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import type { AnnotationChange } from "../store/test-annotations.js";
import { repositoryKey } from "../store/repository-key.js";
import { currentStatus } from "./failing-test-record.js";
import type { KeyedLock } from "./keyed-lock.js";
import type { TestIndexes } from "./test-indexes.js";

/** Repository settings as the API shows them (snake_case names in errors, as the API spells them). */
export interface RepositorySettingsView {
  quarantiningEnabled: boolean;
  autoQuarantineEnabled: boolean;
  flakyFailureRateThreshold: number;
  minRuns: number;
  rateWindowHours: number;
  recoveryWindowHours: number;
  defaultBranch: string;
  brokenAfterConsecutiveFailures: number;
}

export type RepositorySettingsPatch = Partial<RepositorySettingsView> & {
  brokenFailureRateThreshold?: number | undefined;
};

/** Domain setting name -> the API's field name, so a refused value names what the caller sent. */
const API_FIELD: Record<string, string> = {
  failureRateThreshold: "flaky_failure_rate_threshold",
  minTargetBranchRuns: "min_runs",
  rateWindowHours: "rate_window_hours",
  quietWindowHours: "recovery_window_hours",
  brokenAfterConsecutiveFailures: "broken_after_consecutive_failures",
};

const MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024;
const MAX_TICKET_URL = 2048;

export interface AdminDeps {
  store: FlakyStore;
  testIndexes: TestIndexes;
  lock: KeyedLock;
  now: () => number;
}

export async function getRepositorySettings(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
): Promise<RepositorySettingsView> {
  return viewOf(await deps.store.repositories.get(org, repo));
}

export async function updateRepositorySettings(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
  patch: RepositorySettingsPatch,
): Promise<RepositorySettingsView> {
  if (patch.brokenFailureRateThreshold !== undefined) {
    throw new InvalidArgumentError(
      "broken_failure_rate_threshold",
      "is not supported: broken is judged by broken_after_consecutive_failures",
    );
  }
  if (patch.defaultBranch !== undefined && patch.defaultBranch.trim() === "") {
    throw new InvalidArgumentError("default_branch", "must be a non-empty branch name");
  }
  return deps.lock.run(lockKey(org, repo), async () => {
    const current = await deps.store.repositories.get(org, repo);
    const status = resolveWithApiNames({
      ...current.status,
      ...defined({
        failureRateThreshold: patch.flakyFailureRateThreshold,
        minTargetBranchRuns: patch.minRuns,
        rateWindowHours: patch.rateWindowHours,
        quietWindowHours: patch.recoveryWindowHours,
        brokenAfterConsecutiveFailures: patch.brokenAfterConsecutiveFailures,
      }),
    });
    const next: RepositoryDocument = {
      ...current,
      repo: current.updatedAt === 0 ? repo : current.repo,
      quarantiningEnabled: patch.quarantiningEnabled ?? current.quarantiningEnabled,
      autoQuarantineEnabled: patch.autoQuarantineEnabled ?? current.autoQuarantineEnabled,
      defaultBranch: patch.defaultBranch?.trim() ?? current.defaultBranch,
      status,
      updatedAt: deps.now(),
    };
    await deps.store.repositories.save(next);
    return viewOf(next);
  });
}

export async function setCodeowners(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
  content: string,
): Promise<{ rules: number; problems: string[] }> {
  if (Buffer.byteLength(content) > MAX_CODEOWNERS_BYTES) {
    throw new InvalidArgumentError("content", "must be at most 3 MiB (GitHub's limit for CODEOWNERS)");
  }
  const parsed = Codeowners.parse(content);
  await deps.lock.run(lockKey(org, repo), async () => {
    const current = await deps.store.repositories.get(org, repo);
    await deps.store.repositories.save({ ...current, codeowners: content, updatedAt: deps.now() });
  });
  return {
    rules: parsed.rules.length,
    problems: parsed.problems.map((problem) => `line ${problem.line}: ${problem.message}`),
  };
}

export async function getQuarantineConfig(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
): Promise<QuarantineConfig> {
  const repository = await deps.store.repositories.get(org, repo);
  if (!repository.quarantiningEnabled) return { isDisabled: true, testIds: [] };
  const now = deps.now();
  const testIndex = await deps.testIndexes.get(org, repositoryKey(repo));
  const candidates: QuarantineCandidate[] = [];
  for (const test of testIndex.values()) {
    // Flaky or broken by the stored status, or forced by an override; the status is judged again now.
    const stored = test.status.value;
    if (stored !== "flaky" && stored !== "broken" && test.quarantineOverride !== "ALWAYS_QUARANTINE")
      continue;
    candidates.push({
      id: test._id,
      status: currentStatus(test, repository, now).value,
      override: test.quarantineOverride,
    });
  }
  return quarantineConfig(repository, candidates);
}

export async function setQuarantineOverride(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
  testId: string,
  override: QuarantineOverride | undefined,
): Promise<void> {
  requireTestId(testId);
  await annotate(deps, org, repo, testId, { quarantineOverride: override ?? null });
}

export async function linkTicket(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
  testId: string,
  url: string,
): Promise<void> {
  requireTestId(testId);
  const trimmed = url.trim();
  if (trimmed !== "") validateTicketUrl(trimmed);
  await annotate(deps, org, repo, testId, { ticketUrl: trimmed === "" ? null : trimmed });
}

/** Stores a person's decision about a test, then shows it on the test in memory. */
async function annotate(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
  testId: string,
  change: AnnotationChange,
): Promise<void> {
  const repoKey = repositoryKey(repo);
  await deps.lock.run(lockKey(org, repo), async () => {
    const testIndex = await deps.testIndexes.get(org, repoKey);
    const test = testIndex.get(testId);
    if (test === undefined) throw new NotFoundError(`test ${testId} does not exist in repository ${repoKey}`);
    await deps.store.annotations.change(org, repoKey, testId, change);
    const next: TestDocument = { ...test };
    for (const field of ["quarantineOverride", "ticketUrl"] as const) {
      const value = change[field];
      if (value === null) delete next[field];
      else if (value !== undefined) (next as Record<typeof field, string>)[field] = value;
    }
    testIndex.replace(next);
  });
}

/** The lock that every writer of one repository's test documents takes (see KeyedLock). */
export function lockKey(org: string, repo: RepositoryRef): string {
  return `${org}\n${repositoryKey(repo)}`;
}

function viewOf(doc: RepositoryDocument): RepositorySettingsView {
  return {
    quarantiningEnabled: doc.quarantiningEnabled,
    autoQuarantineEnabled: doc.autoQuarantineEnabled,
    flakyFailureRateThreshold: doc.status.failureRateThreshold,
    minRuns: doc.status.minTargetBranchRuns,
    rateWindowHours: doc.status.rateWindowHours,
    recoveryWindowHours: doc.status.quietWindowHours,
    defaultBranch: doc.defaultBranch,
    brokenAfterConsecutiveFailures: doc.status.brokenAfterConsecutiveFailures,
  };
}

function resolveWithApiNames(input: StatusSettings): StatusSettings {
  // The sample must hold enough runs for the rules; it is not exposed, so it grows with them.
  const sample = Math.max(
    DEFAULT_STATUS_SETTINGS.targetBranchSampleSize,
    input.minTargetBranchRuns,
    input.brokenAfterConsecutiveFailures,
  );
  try {
    return resolveStatusSettings({ ...input, targetBranchSampleSize: sample });
  } catch (error) {
    if (error instanceof InvalidArgumentError) {
      throw new InvalidArgumentError(API_FIELD[error.field] ?? error.field, error.rule);
    }
    throw error;
  }
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function requireTestId(testId: string): void {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(testId)) {
    throw new InvalidArgumentError("test_id", "must be a test id (a UUID)");
  }
}

function validateTicketUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || url.length > MAX_TICKET_URL) {
    throw new InvalidArgumentError("url", "must be an absolute http(s) URL of at most 2048 characters");
  }
}
