import { LIMITS } from "./limits.js";
import { utf8Bytes } from "./utf8-bytes.js";

/**
 * The rules of `git check-ref-format` (see its manual), applied to the names the API takes: a queue's target
 * branch, a PR's head branch, a pull-ref pattern. Pure, so the same check answers at the API that git would
 * apply much later, when a run is built: a name git refuses is a 400 now, not a failed run later.
 * Returns the rule a name breaks, or null when git accepts it.
 */
export const MAX_REF_NAME_BYTES = LIMITS.branch;

// Control characters are exactly what this rule is about.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARACTER = /[\x00-\x20\x7f~^:?*[\\]/;

export function refNameProblem(name: string): string | null {
  if (name === "") return "must not be empty";
  if (utf8Bytes(name) > MAX_REF_NAME_BYTES) return `must be at most ${MAX_REF_NAME_BYTES} bytes (UTF-8)`;
  if (FORBIDDEN_CHARACTER.test(name))
    return "must not contain spaces, control characters or any of ~ ^ : ? * [ \\ (git check-ref-format)";
  if (name.includes("..")) return 'must not contain ".." (git check-ref-format)';
  if (name.includes("@{")) return 'must not contain "@{" (git check-ref-format)';
  if (name === "@") return 'must not be "@" (git check-ref-format)';
  if (name.startsWith("/") || name.endsWith("/") || name.includes("//"))
    return 'must not begin or end with "/" nor contain "//" (git check-ref-format)';
  if (name.endsWith(".")) return 'must not end with "." (git check-ref-format)';
  for (const component of name.split("/")) {
    if (component.startsWith(".")) return 'must not have a part that begins with "." (git check-ref-format)';
    if (component.endsWith(".lock"))
      return 'must not have a part that ends with ".lock" (git check-ref-format)';
  }
  return null;
}

/** A branch name as `git check-ref-format --branch` takes it: a ref name that is not an option nor HEAD. */
export function branchNameProblem(name: string): string | null {
  if (name.startsWith("-")) return 'must not begin with "-" (git check-ref-format --branch)';
  if (name === "HEAD") return 'must not be "HEAD" (git check-ref-format --branch)';
  return refNameProblem(name);
}

/** A pull-ref pattern: a full ref under refs/ once `{number}` is replaced by a PR number. */
export function pullRefPatternProblem(pattern: string): string | null {
  if (!pattern.includes("{number}")) return 'must contain "{number}"';
  if (!pattern.startsWith("refs/")) return 'must be a ref under "refs/", e.g. refs/pull/{number}/head';
  return refNameProblem(pattern.replaceAll("{number}", "1"));
}
