import { type TestStatus } from "@mainline/contract";
import type { RepositoryScope } from "./queue-identity.js";

export type TestHealth = TestStatus;

/** The statuses a repository's test count is kept for (mq_tests_current). */
export const COUNTED_TEST_STATUSES = ["flaky", "broken"] as const satisfies readonly TestHealth[];

/** flaky-analytics judged a test anew (its TestStatusChanged event). */
export interface TestStatusFact {
  eventId: string;
  org: string;
  repo: RepositoryScope;
  testId: string;
  status: TestHealth;
  at: number;
}

/** A test that is currently flaky or broken; healthy tests are not remembered. */
export interface TestStatusRecord {
  org: string;
  repo: RepositoryScope;
  testId: string;
  status: Exclude<TestHealth, "healthy">;
  since: number;
}

export function testKeyOf(t: { org: string; repo: RepositoryScope; testId: string }): string {
  return [t.org, t.repo.host, t.repo.owner, t.repo.name, t.testId].map(encodeURIComponent).join("|");
}

/**
 * The record after a status change: undefined when the test is healthy (nothing to count). A fact older than
 * the status held is stale and changes nothing.
 */
export function nextTestStatus(
  current: TestStatusRecord | undefined,
  fact: TestStatusFact,
): {
  record: TestStatusRecord | undefined;
  changed: boolean;
} {
  if (current !== undefined && fact.at < current.since) return { record: current, changed: false };
  if (fact.status === "healthy") return { record: undefined, changed: current !== undefined };
  if (current?.status === fact.status) return { record: current, changed: false };
  return {
    record: { org: fact.org, repo: fact.repo, testId: fact.testId, status: fact.status, since: fact.at },
    changed: true,
  };
}
