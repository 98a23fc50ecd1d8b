import { UnauthenticatedError } from "@mainline/kit/errors/index";
import { decodePageToken, pageInfo } from "../domain/index.js";
import type { ListFailingTestsQuery, PageInfo, PageScope } from "../domain/index.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { repositorySpelling } from "../store/repository-key.js";
import type { CodeownersCache } from "./codeowners-cache.js";
import type { FailingIdsCache } from "./failing-ids-cache.js";
import { failingTestRecord } from "./failing-test-record.js";
import type { FailingTestRecord } from "./failing-test-record.js";
import type { Links } from "./links.js";
import type { TestIndexes } from "./test-indexes.js";

export interface FailingTestsPage {
  tests: FailingTestRecord[];
  page: PageInfo;
}

export interface ListFailingTestsDeps {
  store: FlakyStore;
  testIndexes: TestIndexes;
  codeowners: CodeownersCache;
  failingIds: FailingIdsCache;
  links: Links;
  pageTokenKey: string;
  now: () => number;
}

/**
 * The spec's list-failing-tests. `callerOrg` is the organisation of the API token; `query` is checked
 * (checkListFailingTestsQuery). The distinct failing tests come from the failure times of the
 * repository's tests in memory, in test-id order (stable across pages and calls).
 */
export async function listFailingTests(
  deps: ListFailingTestsDeps,
  callerOrg: string,
  query: ListFailingTestsQuery,
): Promise<FailingTestsPage> {
  // The slug names whose data is read; a token may only read its own organisation's.
  if (query.org !== callerOrg) {
    throw new UnauthenticatedError(
      `Unauthorized: the API token does not belong to the organization "${query.org}"`,
    );
  }
  const scope: PageScope = {
    org: query.org,
    repo: query.repo,
    startTime: query.startTime,
    endTime: query.endTime,
  };
  const pageIndex = query.pageToken ? decodePageToken(query.pageToken, scope, deps.pageTokenKey) : 0;
  const repoKey = repositorySpelling(query.repo);
  const [testIndex, repository] = await Promise.all([
    deps.testIndexes.current(query.org, repoKey),
    deps.store.repositories.get(query.org, query.repo),
  ]);
  // Keyed by the journal position too: entries another replica appended change the answer.
  const scopeKey = `${query.org}\n${repoKey}\n${testIndex.seq}`;
  const ids = await deps.failingIds.get(scopeKey, query.startTime, query.endTime, () =>
    Promise.resolve(testIndex.failingTestIds(query.startTime, query.endTime)),
  );
  const pageIds = ids.slice(pageIndex * query.pageSize, (pageIndex + 1) * query.pageSize);
  const codeowners = deps.codeowners.of(repository.codeowners);
  const now = deps.now();
  const tests: FailingTestRecord[] = [];
  for (const id of pageIds) {
    const doc = testIndex.get(id);
    if (doc) tests.push(failingTestRecord(doc, repository, codeowners, deps.links, now));
  }
  return {
    tests,
    page: pageInfo(scope, { totalRows: ids.length, pageSize: query.pageSize, pageIndex }, deps.pageTokenKey),
  };
}
