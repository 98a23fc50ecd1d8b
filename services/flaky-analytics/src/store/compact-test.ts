import { packBuckets } from "../domain/index.js";
import type { HourlyBucket, RepositoryRef } from "../domain/index.js";
import type { TestDocument } from "./documents.js";

/**
 * Strings read back from a snapshot, one copy each: JSON parsing makes a new string per occurrence,
 * and the same organisation, repository, class, file, branch and commit recur in thousands of tests.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();
  private readonly repos = new Map<string, RepositoryRef>();

  string<T extends string | undefined>(value: T): T {
    if (value === undefined) return value;
    const known = this.strings.get(value);
    if (known !== undefined) return known as T;
    this.strings.set(value, value);
    return value;
  }

  repo(repo: RepositoryRef): RepositoryRef {
    const key = `${repo.host}/${repo.owner}/${repo.name}`;
    let known = this.repos.get(key);
    if (known === undefined) {
      known = { host: this.string(repo.host), owner: this.string(repo.owner), name: this.string(repo.name) };
      this.repos.set(key, known);
    }
    return known;
  }
}

/** A test as a snapshot stored it, in the form memory keeps: buckets packed, recurring strings shared. */
export function compactTest(test: TestDocument, pool: StringPool): TestDocument {
  const s = <T extends string | undefined>(value: T) => pool.string(value);
  const legacy = test.buckets.length > 0 && typeof test.buckets[0] === "object";
  const compact: TestDocument = {
    ...test,
    org: s(test.org),
    repoKey: s(test.repoKey),
    repo: pool.repo(test.repo),
    variant: s(test.variant),
    status: { ...test.status, reason: s(test.status.reason) },
    evidence: {
      ...test.evidence,
      recentCommits: test.evidence.recentCommits.map((commit) => ({ ...commit, sha: s(commit.sha) })),
    },
    buckets: legacy ? packBuckets(test.buckets as unknown as HourlyBucket[]) : test.buckets,
  };
  if (test.file !== undefined) compact.file = s(test.file);
  if (test.classname !== undefined) compact.classname = s(test.classname);
  if (test.parent !== undefined) compact.parent = s(test.parent);
  if (test.recentRuns !== undefined) {
    compact.recentRuns = test.recentRuns.map((run) => ({
      ...run,
      branch: s(run.branch),
      commitSha: s(run.commitSha),
    }));
  }
  return compact;
}
