import type { RepositoryRef, TestStatusValue } from "../domain/index.js";
import { isQuarantined, recentRunList } from "../domain/index.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { repositorySpelling } from "../store/repository-key.js";
import { currentStatus } from "./failing-test-record.js";
import type { TestIndexes } from "./test-indexes.js";

/** What flaky-analytics knows of one test, for the merge queue deciding a failed run. */
export interface TestStatusAnswer {
  testId: string;
  /** False for a test the repository has no record of: nothing below is known. */
  known: boolean;
  status?: TestStatusValue;
  /** Since when the test has that status (epoch ms). */
  statusSince?: number;
  quarantined: boolean;
  /** Whether the test's latest kept run on the target branch failed; undefined when none is kept. */
  failedOnTarget?: boolean;
  /** When that run happened (epoch ms). */
  targetRunAt?: number;
}

export interface TestsStatusQuery {
  org: string;
  repo: RepositoryRef;
  testIds: readonly string[];
  /** The branch whose own runs tell whether a test fails there; empty: not asked. */
  targetBranch: string;
}

/**
 * A batch of tests answered from the repository's tests in memory (one settings read, then a map lookup per
 * test): the queue asks when a run fails and must not wait. The status is judged again now, as the listing does.
 */
export async function testsStatus(
  deps: { store: FlakyStore; testIndexes: TestIndexes; now: () => number },
  query: TestsStatusQuery,
): Promise<{ tests: TestStatusAnswer[]; quarantiningEnabled: boolean }> {
  const [testIndex, repository] = await Promise.all([
    deps.testIndexes.get(query.org, repositorySpelling(query.repo)),
    deps.store.repositories.get(query.org, query.repo),
  ]);
  const now = deps.now();
  const tests = query.testIds.map((testId): TestStatusAnswer => {
    const doc = testIndex.get(testId.toLowerCase()) ?? testIndex.get(testId);
    if (doc === undefined) return { testId, known: false, quarantined: false };
    const { value: status, timestamp } = currentStatus(doc, repository, now);
    const onTarget =
      query.targetBranch === ""
        ? undefined
        : recentRunList(doc.recentRuns)
            .reverse()
            .find((run) => run.branch === query.targetBranch && run.context === "ci");
    return {
      testId,
      known: true,
      status,
      statusSince: timestamp,
      quarantined: isQuarantined(repository, doc.quarantineOverride, status),
      ...(onTarget !== undefined && {
        failedOnTarget: onTarget.outcome === "failed",
        targetRunAt: onTarget.at,
      }),
    };
  });
  return { tests, quarantiningEnabled: repository.quarantiningEnabled };
}
