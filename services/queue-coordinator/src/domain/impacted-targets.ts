import { InvalidArgumentError } from "@mainline/kit/errors/errors";

/**
 * Impacted targets declared for one head sha. "ALL" makes the PR a prerequisite of every PR
 * behind it (rule 11); an empty list depends on nothing and nothing depends on it.
 */
export interface ImpactedTargets {
  sha: string;
  targets: string[] | "ALL";
}

export function parseImpactedTargets(sha: unknown, targets: unknown): ImpactedTargets {
  if (typeof sha !== "string" || sha.length === 0)
    throw new InvalidArgumentError("pr.sha", "must be a non-empty string");
  if (typeof targets === "string" && targets.toUpperCase() === "ALL") return { sha, targets: "ALL" };
  if (!Array.isArray(targets) || !targets.every((t) => typeof t === "string" && t.length > 0)) {
    throw new InvalidArgumentError("impactedTargets", 'must be a list of non-empty strings or "ALL"');
  }
  return { sha, targets: [...new Set(targets as string[])].sort() };
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
