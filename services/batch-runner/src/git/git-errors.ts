import { MainlineError } from "@mainline/kit/errors/index";

/**
 * A git command exited non-zero (or was killed) for a reason that trying again will not fix.
 * Carries what ran and what git said, so the failure can be logged and diagnosed.
 */
export class GitCommandError extends MainlineError {
  readonly code = "INTERNAL";
  readonly retryable = false;
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    detail?: string,
  ) {
    super(`git ${args.join(" ")} failed (${detail ?? `exit ${exitCode}`}): ${lastLine(stderr)}`);
  }
}

/** Applying a pull request onto the projected branch conflicts; the run fails with MERGE_CONFLICT. */
export class MergeConflictError extends MainlineError {
  readonly code = "FAILED_PRECONDITION";
  readonly retryable = false;
  constructor(
    readonly prNumber: number,
    readonly conflictingFiles: readonly string[],
  ) {
    super(
      `pull request #${prNumber} conflicts with the projected branch (${conflictingFiles.join(", ") || "unknown files"})`,
    );
  }
}

/**
 * The target branch is no longer an ancestor of the tested commit, so merging would need a
 * force-push or an untested state. The coordinator restarts the affected runs.
 */
export class TargetMovedError extends MainlineError {
  readonly code = "ABORTED";
  readonly retryable = false;
  constructor(
    readonly targetBranch: string,
    readonly currentSha: string,
    readonly testedSha: string,
    readonly reason = `${testedSha} does not contain it`,
  ) {
    super(`target ${targetBranch} moved to ${currentSha}: ${reason}`);
  }
}

/** A ref the job names (target branch, pull request head, base commit) is not on the remote. */
export class RemoteRefNotFoundError extends MainlineError {
  readonly code = "FAILED_PRECONDITION";
  readonly retryable = false;
  constructor(
    readonly ref: string,
    readonly prNumber?: number,
  ) {
    super(
      prNumber === undefined
        ? `${ref} not found on the remote`
        : `head of pull request #${prNumber} (${ref}) not found on the remote`,
    );
  }
}

/** A pull request's head is not the commit the queue expected: it was pushed to after enqueueing. */
export class PullRequestHeadMismatchError extends MainlineError {
  readonly code = "FAILED_PRECONDITION";
  readonly retryable = false;
  constructor(
    readonly prNumber: number,
    readonly expectedSha: string,
    readonly actualSha: string,
  ) {
    super(`head of pull request #${prNumber} is ${actualSha}, expected ${expectedSha}`);
  }
}

/**
 * A test branch for this test-run id exists but does not hold the pull requests the job names:
 * two different jobs shared one test-run id, which is a broken invariant upstream.
 */
export class TestBranchMismatchError extends MainlineError {
  readonly code = "FAILED_PRECONDITION";
  readonly retryable = false;
  constructor(
    readonly testBranch: string,
    detail: string,
  ) {
    super(`existing test branch ${testBranch} does not match the job: ${detail}`);
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1] ?? "";
}

/**
 * The worktree a test command ran in disappeared under it (another process cleaned the work dir, the disk
 * was wiped): whatever the command said is not about the pull requests, so the run is tried again.
 */
export class WorktreeVanishedError extends MainlineError {
  readonly code = "UNAVAILABLE";
  readonly retryable = true;
  constructor(readonly path: string) {
    super(`the test worktree ${path} disappeared while the test command ran; the run is tried again`);
  }
}
