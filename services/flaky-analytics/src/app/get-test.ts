import { NotFoundError } from "@mainline/kit/errors/index";
import { recentRunList } from "../domain/index.js";
import type { RecentRun, RepositoryRef } from "../domain/index.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { repositorySpelling } from "../store/repository-key.js";
import type { CodeownersCache } from "./codeowners-cache.js";
import { failingTestRecord, type FailingTestRecord } from "./failing-test-record.js";
import type { Links } from "./links.js";
import type { TestIndexes } from "./test-indexes.js";

export interface TestDetails {
  record: FailingTestRecord;
  /** Newest first. */
  recentRuns: RecentRun[];
}

/**
 * One test as its page shows it: the record list-failing-tests would give now (also for a test that has not
 * failed lately) and its latest runs, both read from the repository's tests in memory.
 */
export async function getTest(
  deps: {
    store: FlakyStore;
    testIndexes: TestIndexes;
    codeowners: CodeownersCache;
    links: Links;
    now: () => number;
  },
  org: string,
  repo: RepositoryRef,
  testId: string,
): Promise<TestDetails> {
  const repoKey = repositorySpelling(repo);
  const [testIndex, repository] = await Promise.all([
    deps.testIndexes.current(org, repoKey),
    deps.store.repositories.get(org, repo),
  ]);
  const doc = testIndex.get(testId.toLowerCase()) ?? testIndex.get(testId);
  if (doc === undefined) throw new NotFoundError(`test ${testId} does not exist in repository ${repoKey}`);
  const codeowners = deps.codeowners.of(repository.codeowners);
  return {
    record: failingTestRecord(doc, repository, codeowners, deps.links, deps.now()),
    recentRuns: recentRunList(doc.recentRuns).reverse(),
  };
}
