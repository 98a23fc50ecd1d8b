/**
 * Exit codes of the CLI, documented in the README: scripts branch on them.
 * `mainline test` is the exception: it exits with its command's code (or 0 when quarantine forgives it).
 */
export const EXIT = {
  ok: 0,
  /** The service answered with an error, or what was waited for ended badly (a PR failed). */
  failed: 1,
  /** The command line or the environment is wrong; the message says what to change. */
  usage: 2,
  /** The service could not be reached at all. */
  unreachable: 3,
} as const;

/** A problem the user can fix; its message is the one line the CLI prints. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = "CliError";
  }
}
