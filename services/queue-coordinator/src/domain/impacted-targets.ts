/**
 * Impacted targets declared for one head sha. "ALL" makes the PR a prerequisite of every PR
 * behind it (rule 11); an empty list depends on nothing and nothing depends on it.
 */
export interface ImpactedTargets {
  sha: string;
  targets: string[] | "ALL";
}

/** The targets in their one form: each once, sorted (so that two declarations of the same set compare equal). */
export function impactedTargets(sha: string, targets: readonly string[] | "ALL"): ImpactedTargets {
  return { sha, targets: targets === "ALL" ? "ALL" : [...new Set(targets)].sort() };
}

export function sameTargets(a: ImpactedTargets["targets"], b: ImpactedTargets["targets"]): boolean {
  if (a === "ALL" || b === "ALL") return a === b;
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Whether two PRs with these targets are in one lane (rules 11, 12): ALL meets everything. */
export function targetsOverlap(a: ImpactedTargets["targets"], b: ImpactedTargets["targets"]): boolean {
  if (a === "ALL" || b === "ALL") return true;
  return a.some((t) => b.includes(t));
}
