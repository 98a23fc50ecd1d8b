import { NotFoundError } from "@mainline/kit/errors/index";
import { Codeowners, quarantineConfig, sampleSizeFor } from "../domain/index.js";
import type {
  QuarantineCandidate,
  QuarantineConfig,
  QuarantineOverride,
  RepositoryRef,
  StatusSettings,
} from "../domain/index.js";
import type { RepositoryDocument } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import type { AnnotationChange } from "../store/test-annotations.js";
import { repositorySpelling } from "../store/repository-key.js";
import { JournalPositionTakenError } from "../store/upload-journal.js";
import { annotate as withAnnotation } from "./journal-replay.js";
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

/** What updateRepositorySettings changes, already checked (api/command-parser.ts). */
export type RepositorySettingsPatch = Partial<RepositorySettingsView>;

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
  return deps.lock.run(lockKey(org, repo), async () => {
    const current = await deps.store.repositories.get(org, repo);
    const status = withSample({
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
      defaultBranch: patch.defaultBranch ?? current.defaultBranch,
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
  const testIndex = await deps.testIndexes.current(org, repositorySpelling(repo));
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
  await annotate(deps, org, repo, testId, { quarantineOverride: override ?? null });
}

export async function linkTicket(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
  testId: string,
  url: string,
): Promise<void> {
  await annotate(deps, org, repo, testId, { ticketUrl: url === "" ? null : url });
}

/**
 * Stores a person's decision about a test as an entry of the repository's journal (so every replica
 * applies it in the same order as the uploads), then shows it on the test in memory.
 */
async function annotate(
  deps: AdminDeps,
  org: string,
  repo: RepositoryRef,
  testId: string,
  change: AnnotationChange,
): Promise<void> {
  const repoKey = repositorySpelling(repo);
  await deps.lock.run(lockKey(org, repo), async () => {
    let lost = 0;
    for (let attempt = 1; ; attempt++) {
      const testIndex = await deps.testIndexes.currentLocked(org, repoKey, lost);
      const test = testIndex.get(testId);
      if (test === undefined)
        throw new NotFoundError(`test ${testId} does not exist in repository ${repoKey}`);
      const seq = testIndex.seq + 1;
      try {
        await deps.store.uploads.appendAnnotation(org, repoKey, seq, { testId, ...change });
      } catch (error) {
        if (!(error instanceof JournalPositionTakenError) || attempt >= MAX_APPEND_ATTEMPTS) throw error;
        lost = error.seq;
        continue;
      }
      testIndex.apply(seq, [withAnnotation(test, change)], 0);
      // Also kept on its own, as before annotations went through the journal (older snapshots read it).
      await deps.store.annotations.change(org, repoKey, testId, change);
      await deps.store.heads.advance(org, repoKey, seq);
      return;
    }
  });
}

const MAX_APPEND_ATTEMPTS = 50;

/** The lock that every writer of one repository's test documents takes (see KeyedLock). */
export function lockKey(org: string, repo: RepositoryRef): string {
  return `${org}\n${repositorySpelling(repo)}`;
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

function withSample(settings: StatusSettings): StatusSettings {
  // The sample must hold enough runs for the rules; it is not exposed, so it grows with them.
  return { ...settings, targetBranchSampleSize: sampleSizeFor(settings) };
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
