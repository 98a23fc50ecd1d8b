/** What a test run produced, whichever runner ran it. */
export type RunOutcome = "passed" | "failed" | "timed_out";

export interface JunitFile {
  /** Relative to the worktree (command runner) or as the reporter named it (external runner). */
  readonly path: string;
  readonly content: string;
}
