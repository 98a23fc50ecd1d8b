/** Where a terminal-bound writer sends text; `isTTY` and `columns` decide between a live display and plain lines. */
export interface TextSink {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

/**
 * Everything the CLI reads from or writes to its surroundings. The process supplies the real ones; tests and
 * the demo supply their own, so the same command code runs in process.
 */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * How `mainline test` wires the test command's output: "inherit" hands it the terminal (colours, prompts),
   * "pipe" copies it into stdout/stderr above.
   */
  readonly childStdio: "inherit" | "pipe";
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    childStdio: "inherit",
  };
}
