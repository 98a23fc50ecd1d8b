import type { Command } from "commander";
import { commitOf, currentBranch } from "../app/git-facts.js";
import { readJunitFiles } from "../app/junit-files.js";
import { applyQuarantine } from "../app/quarantine-gate.js";
import { runTestCommand } from "../app/run-test-command.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { collect, withRepoOption, wholeNumber } from "../command-options.js";

/**
 * `mainline test -- <command>`: runs a CI job's tests, uploads the JUnit reports, and exits 0 when every
 * failing test is quarantined.
 */
export function registerTestCommand(program: Command, cli: CliContext): void {
  withRepoOption(
    program
      .command("test")
      .description("run a test command, upload its JUnit reports, and forgive failures of quarantined tests")
      .argument("<command...>", "the test command, after --")
      .option(
        "--junit <glob>",
        "JUnit XML files the command writes (repeat; default: $MAINLINE_JUNIT)",
        collect,
      )
      .option("--branch <name>", "the branch under test (default: the checked-out branch)")
      .option("--commit <sha>", "the commit under test (default: HEAD)")
      .option("--pr <number>", "the pull request under test", wholeNumber(1))
      .option("--variant <name>", "the configuration the tests ran under (e.g. linux-node20)")
      .option("--job-name <name>", "the CI job's name")
      .option("--org <slug>", "the organisation (default: the token's)")
      .addHelpText(
        "after",
        "\nExit code: 0 when the command passed or every failing test is quarantined; otherwise the command's own\n" +
          "code, also when Mainline cannot be reached (the reason is printed). Reports older than the command are\n" +
          "ignored; reports that could not be uploaded are named on stderr with the reason.\n\nExample: mainline test --repo github.com/acme/app --junit 'reports/*.xml' -- npm test",
      ),
  ).action(async (argv: string[], opts: TestOptions, command: Command) => {
    const out = cli.output(command);
    // Configuration mistakes stop before the command runs: a wrapper that silently uploads nothing helps no one.
    const repo = cli.repository(command);
    const globs = opts.junit ?? cli.io.env.MAINLINE_JUNIT?.split(",").filter(Boolean) ?? [];
    if (globs.length === 0) {
      throw new CliError(
        "--junit is required: the glob of the JUnit XML files the command writes, e.g. --junit 'reports/*.xml'",
      );
    }
    const api = cli.api();
    const commitSha = opts.commit ?? (await commitOf(cli.io.cwd, "HEAD"));
    if (!commitSha)
      throw new CliError(`no --commit given and ${cli.io.cwd} is not a git checkout: give --commit <sha>`);
    const branch = opts.branch ?? (await currentBranch(cli.io.cwd));
    if (!branch) throw new CliError("no --branch given and HEAD is detached: give --branch <name>");

    const startedAt = new Date();
    const ran = await runTestCommand(argv, cli.io, out.json);
    if (ran.startError) out.note(`mainline test: ${ran.startError}`);
    const files = await readJunitFiles(cli.io.cwd, globs, startedAt.getTime());
    const result = await applyQuarantine(
      api,
      {
        repo,
        commitSha,
        branch,
        prNumber: opts.pr,
        variant: opts.variant,
        jobName: opts.jobName,
        org: opts.org,
        startedAt,
      },
      ran.exitCode,
      files,
    );
    if (result.upload) {
      const u = result.upload;
      out.note(
        `mainline test: uploaded ${u.files} JUnit file(s): ${u.results} results, ${u.passed} passed, ${u.failed} failed, ${u.skipped} skipped`,
      );
    } else if (result.uploadError) {
      out.note(
        `mainline test: the results were not uploaded (${files.length} JUnit file(s)): ${result.uploadError}`,
      );
    } else if (files.length === 0) {
      out.note(`mainline test: no JUnit file matched ${globs.join(" ")} (written since the command started)`);
    }
    const verdictLine =
      result.exitCode === result.commandExitCode
        ? `mainline test: ${result.reason}; keeping the command's exit code ${result.exitCode}`
        : `mainline test: ${result.reason}; exiting 0 instead of ${result.commandExitCode}`;
    if (result.commandExitCode !== 0 || result.exitCode !== 0) out.note(verdictLine);
    if (out.json) out.result(result, () => "");
    cli.exitCode = result.exitCode;
  });
}

interface TestOptions {
  junit?: string[];
  branch?: string;
  commit?: string;
  pr?: number;
  variant?: string;
  jobName?: string;
  org?: string;
}
