import { spawn, type StdioOptions } from "node:child_process";
import { constants } from "node:os";
import type { CliIo } from "../cli-io.js";

export interface CommandOutcome {
  /** The code the command exited with; 128 + N when signal N ended it (as a shell reports it). */
  exitCode: number;
  /** Why there is no real exit code: the command could not be started. */
  startError?: string;
}

/**
 * Runs the user's test command. Several words are run as they are (no shell); one word with spaces or shell
 * syntax (`mainline test -- "npm test && npm run e2e"`) is handed to `sh -c`, which is what the user meant.
 * With `outputToStderr` (--json) the command's stdout goes to stderr, so stdout carries only the result.
 */
export function runTestCommand(
  argv: readonly string[],
  io: CliIo,
  outputToStderr: boolean,
): Promise<CommandOutcome> {
  const [file, ...args] =
    argv.length === 1 && /[\s;&|<>()$`'"*?]/.test(argv[0] ?? "") ? ["sh", "-c", argv[0] ?? ""] : argv;
  const stdio: StdioOptions =
    io.childStdio === "inherit"
      ? ["inherit", outputToStderr ? 2 : "inherit", "inherit"]
      : ["ignore", "pipe", "pipe"];
  return new Promise((resolve) => {
    const child = spawn(file ?? "", args, { cwd: io.cwd, env: { ...io.env }, stdio });
    const stdout = outputToStderr ? io.stderr : io.stdout;
    child.stdout?.on("data", (chunk: Buffer) => stdout.write(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => io.stderr.write(chunk.toString()));
    child.on("error", (error: NodeJS.ErrnoException) => {
      const notFound = error.code === "ENOENT";
      resolve({
        exitCode: notFound ? 127 : 126,
        startError: notFound ? `${file}: command not found` : `${file}: ${error.message}`,
      });
    });
    child.on("close", (code, signal) => {
      resolve({ exitCode: code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0) });
    });
  });
}
