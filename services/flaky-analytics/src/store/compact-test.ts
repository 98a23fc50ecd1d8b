import { packBuckets, recentRunColumns } from "../domain/index.js";
import type { HourlyBucket, RecentRun, RecentRuns, RepositoryRef, TestEvidence } from "../domain/index.js";
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
    evidence: compactEvidence(test.evidence, pool),
    buckets: legacy ? packBuckets(test.buckets as unknown as HourlyBucket[]) : test.buckets,
  };
  if (test.file !== undefined) compact.file = s(test.file);
  if (test.classname !== undefined) compact.classname = s(test.classname);
  if (test.parent !== undefined) compact.parent = s(test.parent);
  const runs = test.recentRuns as RecentRuns | RecentRun[] | undefined;
  if (runs !== undefined) {
    // Snapshots of before stored an object per run.
    const columns = Array.isArray(runs) ? recentRunColumns(runs) : runs;
    compact.recentRuns = { numbers: columns.numbers, strings: columns.strings.map(s) };
  }
  return compact;
}

/** Evidence as snapshots of before stored it: one object per run and per commit. */
interface LegacyEvidence {
  targetBranchRuns: { at: number; failed: boolean }[];
  recentCommits: { sha: string; at: number; failed: boolean; passed: boolean }[];
}

/** Evidence in the form memory keeps, its commit shas shared; snapshots of before are converted. */
function compactEvidence(
  stored: TestEvidence | (Omit<TestEvidence, keyof LegacyEvidence> & LegacyEvidence),
  pool: StringPool,
): TestEvidence {
  const runs = stored.targetBranchRuns;
  const commits = stored.recentCommits;
  const evidence = {
    ...stored,
    targetBranchRuns: Array.isArray(runs)
      ? { at: runs.map((run) => run.at), failed: runs.map((run) => run.failed) }
      : runs,
    recentCommits: Array.isArray(commits)
      ? {
          sha: commits.map((commit) => commit.sha),
          seen: commits.flatMap((commit) => [commit.at, (commit.failed ? 1 : 0) + (commit.passed ? 2 : 0)]),
        }
      : commits,
  };
  const { sha, seen } = evidence.recentCommits;
  return { ...evidence, recentCommits: { sha: sha.map((commit) => pool.string(commit)), seen } };
}
