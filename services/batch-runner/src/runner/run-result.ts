/** What a test run produced, whichever runner ran it: the contract's verdict words. */
export type { RunVerdict as RunOutcome } from "@mainline/contract";

export interface JunitFile {
  /** Relative to the worktree (command runner) or as the reporter named it (external runner). */
  readonly path: string;
  readonly content: string;
}
