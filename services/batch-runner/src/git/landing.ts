import { firstParentCommits, type HistoryCommit } from "./first-parent-commits.js";
import type { Git } from "./git.js";
import { replayCommit } from "./replay-commit.js";
import type { Mirror } from "./repository-cache.js";

// A tested branch or a target this many commits past their common base was not made by the queue.
const MAX_COMMITS = 10_000;

export interface LandingInput {
  /** The last tested commit to land (the tip of the tested PRs on the test branch). */
  readonly testedSha: string;
  /** The target's head now. */
  readonly targetSha: string;
  /**
   * PARALLEL mode: PRs of other lanes may have merged since the run was built. Their lanes are
   * disjoint by contract, so the tested PRs land on top of them when git applies them cleanly.
   */
  readonly otherLanesMayMerge: boolean;
}

export type Landing =
  /** Every tested PR is on the target already (a redelivered merge): nothing to push. */
  | { readonly kind: "contained" }
  /** Push `tip`, a descendant of the target holding each remaining tested PR as its own commit(s). */
  | { readonly kind: "land"; readonly tip: string }
  /** The target moved in a way the tested state does not account for: the queue must re-test. */
  | { readonly kind: "moved"; readonly reason: string };

interface PrCommits {
  readonly pr: number;
  readonly commits: HistoryCommit[];
}

/**
 * Decides what lands on the target for a passing run and writes those commits into `git`.
 *
 * The run's commits sit on a base; since then the target may have gained the PRs ahead from their
 * own runs (other commits, same content), and in PARALLEL mode other lanes' PRs. When the target
 * holds exactly the tested PRs ahead with exactly the tested tree, the remaining tested commits
 * are replayed onto it with their tested trees, so what lands is the tree that was tested. When
 * other lanes merged, each remaining commit is re-applied with a three-way merge instead. A
 * commit whose tree equals its new parent's (a PR already on the target) is never landed.
 */
export async function planLanding(mirror: Mirror, input: LandingInput): Promise<Landing> {
  const { testedSha, targetSha } = input;
  const git = mirror.git;
  if (await mirror.isAncestor(testedSha, targetSha)) return { kind: "contained" };
  const tested = await firstParentCommits(git, testedSha, targetSha, MAX_COMMITS);
  const base = tested?.[0]?.parents[0];
  if (tested === undefined || base === undefined)
    return moved(`the tested commit ${testedSha} shares no recent history with the target`);
  const landed = await firstParentCommits(git, targetSha, base, MAX_COMMITS);
  if (landed === undefined || (landed.length > 0 && landed[0]!.parents[0] !== base))
    return moved(`the target no longer descends from the tested base ${base} along its own history`);
  const outside = landed.find((c) => c.pr === undefined);
  if (outside !== undefined) return moved(`commit ${outside.sha} on the target was not merged by the queue`);
  const untagged = tested.find((c) => c.pr === undefined);
  if (untagged !== undefined) return moved(`tested commit ${untagged.sha} names no pull request`);

  // An empty tested commit (a PR ahead that the base already held) changes nothing and never
  // lands, so it takes no part in matching the tested PRs to the target's.
  const baseTree = await git.text(["rev-parse", `${base}^{tree}`]);
  const changes = tested.filter((c, i) => c.tree !== (i === 0 ? baseTree : tested[i - 1]!.tree));
  const groups = byPullRequest(changes);
  const onTarget = new Set(landed.map((c) => c.pr!));
  let mergedCount = 0;
  while (mergedCount < groups.length && onTarget.has(groups[mergedCount]!.pr)) mergedCount++;
  const pending = groups.slice(mergedCount);
  const outOfOrder = pending.find((g) => onTarget.has(g.pr));
  if (outOfOrder !== undefined)
    return moved(`PR #${outOfOrder.pr} reached the target out of the tested order`);
  if (pending.length === 0) return { kind: "contained" };

  const testedAhead = new Set(groups.slice(0, mergedCount).map((g) => g.pr));
  const otherPrs = [...onTarget].filter((pr) => !testedAhead.has(pr));
  const targetTree = await git.text(["rev-parse", `${targetSha}^{tree}`]);
  let exact = true;
  if (otherPrs.length > 0) {
    if (!input.otherLanesMayMerge)
      return moved(
        `PR(s) ${otherPrs.map((n) => `#${n}`).join(", ")} on the target were not in the tested run`,
      );
    exact = false;
  } else {
    const testedTree = mergedCount === 0 ? baseTree : groups[mergedCount - 1]!.commits.at(-1)!.tree;
    if (targetTree !== testedTree)
      return moved("the target holds the PRs ahead, but not the content they were tested with");
  }

  let tip = targetSha;
  let tipTree = targetTree;
  for (const commit of pending.flatMap((g) => g.commits)) {
    const tree = exact ? commit.tree : await reapply(git, commit, tipTree);
    if (tree === undefined) return moved(`PR #${commit.pr} no longer applies cleanly on the target`);
    if (tree === tipTree) continue;
    tip = await replayCommit(git, commit.sha, [tip, ...commit.parents.slice(1)], tree);
    tipTree = tree;
  }
  return tip === targetSha ? { kind: "contained" } : { kind: "land", tip };
}

function byPullRequest(commits: readonly HistoryCommit[]): PrCommits[] {
  const groups: PrCommits[] = [];
  for (const commit of commits) {
    const last = groups.at(-1);
    if (last !== undefined && last.pr === commit.pr) last.commits.push(commit);
    else groups.push({ pr: commit.pr!, commits: [commit] });
  }
  return groups;
}

/**
 * The tree of `commit`'s change (against its first parent) applied to `ontoTree`, or undefined
 * on a conflict. git 2.39's merge-tree takes no explicit merge base, so a throwaway commit of
 * `ontoTree` on the commit's parent makes that parent the only merge base.
 */
async function reapply(git: Git, commit: HistoryCommit, ontoTree: string): Promise<string | undefined> {
  const ours = await git.text([
    "commit-tree",
    ontoTree,
    "-p",
    commit.parents[0]!,
    "-m",
    "mainline: re-apply base",
  ]);
  const merged = await git.run(["merge-tree", "--write-tree", ours, commit.sha], { okExitCodes: [1] });
  return merged.exitCode === 0 ? merged.stdout.split("\n")[0] : undefined;
}

function moved(reason: string): Landing {
  return { kind: "moved", reason };
}
