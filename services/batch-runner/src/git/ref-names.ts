import { InvalidArgumentError } from "@mainline/kit/errors/index";

export { DEFAULT_PULL_REF_PATTERN } from "@mainline/contract";
export const DEFAULT_TEST_BRANCH_PREFIX = "mainline/test";

// The subset of `git check-ref-format` rules that matter for names we put into refspecs; a name
// that passes can never be read by git as an option, a revision expression or a refspec.
const FORBIDDEN_IN_REF = /[ ~^:?*[\\]|\.\.|@\{|\/\/|\/\.|^[-./]|[/.]$|\.lock$|\.lock\//;

function hasControlCharacter(name: string): boolean {
  return [...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

// Room for a test branch: the prefix, a target branch of up to 255 bytes (the API's bound) and a run id.
const MAX_REF_BYTES = 1024;

export function assertBranchName(field: string, name: string): void {
  if (
    name.length === 0 ||
    Buffer.byteLength(name) > MAX_REF_BYTES ||
    name === "@" ||
    FORBIDDEN_IN_REF.test(name) ||
    hasControlCharacter(name)
  ) {
    throw new InvalidArgumentError(field, "must be a valid git branch name");
  }
}

export function assertRefName(field: string, ref: string): void {
  if (!ref.startsWith("refs/")) throw new InvalidArgumentError(field, "must start with refs/");
  assertBranchName(field, ref);
}

/** Test-run and merge ids become ref path components, so they stay within a safe alphabet. */
export function assertRunId(field: string, id: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id)) {
    throw new InvalidArgumentError(field, "must be 1-128 letters, digits, '-' or '_'");
  }
}

export function assertSha(field: string, sha: string): void {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(sha)) {
    throw new InvalidArgumentError(field, "must be a full lowercase hex commit sha");
  }
}

export function assertPullRequestNumber(field: string, n: number): void {
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError(field, "must be a positive integer");
}

export function assertRemoteUrl(field: string, url: string): void {
  // Only ever passed through `git config`, but a leading dash or a newline is never a real remote.
  if (url.trim().length === 0 || url.startsWith("-") || /[\r\n\0]/.test(url)) {
    throw new InvalidArgumentError(field, "must be a git remote URL");
  }
}

/** The remote ref holding a pull request's head, e.g. refs/pull/12/head. */
export function pullRequestRef(pattern: string, prNumber: number): string {
  if (!pattern.includes("{number}"))
    throw new InvalidArgumentError("pullRefPattern", "must contain {number}");
  const ref = pattern.replaceAll("{number}", String(prNumber));
  assertRefName("pullRefPattern", ref);
  return ref;
}

/** Carries the queue (its target branch) and the test run, so replicas agree on it. */
export function testBranchName(prefix: string, targetBranch: string, testRunId: string): string {
  const name = `${prefix}/${targetBranch}/${testRunId}`;
  assertBranchName("testBranchPrefix", name);
  return name;
}
