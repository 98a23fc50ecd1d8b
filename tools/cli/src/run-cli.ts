import { CommanderError, type Command } from "commander";
import { CliContext } from "./cli-context.js";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { buildProgram } from "./program.js";

/**
 * Runs one `mainline` command line and returns its exit code instead of exiting, so the process entry, the
 * tests and the demo all go through the same code. Every error becomes one line on stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const cli = new CliContext(io);
  const program = buildProgram(cli);
  configure(program, io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return cli.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are "errors" only in commander's control flow; usage errors were already printed.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      io.stderr.write(`mainline: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(
      `mainline: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.failed;
  }
}

/** Commander writes and exits by itself by default; here it throws and writes where the run's io says. */
function configure(command: Command, io: CliIo): void {
  command.exitOverride();
  command.configureOutput({
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    getOutHelpWidth: () => io.stdout.columns ?? 100,
    getErrHelpWidth: () => io.stderr.columns ?? 100,
  });
  for (const sub of command.commands) configure(sub, io);
}
