import type { Command } from "commander";
import { commitOf, currentBranch } from "../app/git-facts.js";
import { readJunitFiles } from "../app/junit-files.js";
import { applyQuarantine } from "../app/quarantine-gate.js";
import { runTestCommand } from "../app/run-test-command.js";
import { attemptTests, retryFailedTests, type RetryOutcome } from "../app/test-attempts.js";
import { RETRY_LIMITS } from "../domain/flaky-retry.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { collect, withRepoOption, wholeNumber, wholeNumberIn } from "../command-options.js";

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
      .option(
        "--retries <n>",
        `re-run the command up to N times (${RETRY_LIMITS.retries.join("..")}) while tests of the first run still fail`,
        wholeNumberIn(RETRY_LIMITS.retries),
        0,
      )
      .option(
        "--max-failed-for-retry <m>",
        `no retry when more than M tests failed: not a flake (default ${RETRY_LIMITS.defaultMaxFailedForRetry})`,
        wholeNumberIn(RETRY_LIMITS.maxFailedForRetry),
        RETRY_LIMITS.defaultMaxFailedForRetry,
      )
      .addHelpText(
        "after",
        "\nExit code: 0 when the command passed or every failing test is quarantined; otherwise the command's own\n" +
          "code, also when Mainline cannot be reached (the reason is printed). Reports older than the command are\n" +
          "ignored; reports that could not be uploaded are named on stderr with the reason. With --retries, exit 0\n" +
          "also when every failure of the first run passed in a retry (flaky); every attempt is uploaded.\n\nExample: mainline test --repo github.com/acme/app --junit 'reports/*.xml' -- npm test",
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
    const facts = {
      repo,
      commitSha,
      branch,
      prNumber: opts.pr,
      variant: opts.variant,
      jobName: opts.jobName,
      org: opts.org,
    };
    /** Retries only a failure the quarantine did not forgive, and only one the reports name. */
    const retryIfFlaky = async (
      options: TestOptions,
      gate: { exitCode: number; quarantined: { name: string }[] },
      firstFiles: Awaited<ReturnType<typeof readJunitFiles>>,
      note: (line: string) => void,
    ): Promise<RetryOutcome | undefined> => {
      if (options.retries === 0 || gate.exitCode === 0 || firstFiles.length === 0) return undefined;
      const forgiven = new Set(gate.quarantined.map((t) => t.name));
      const first = attemptTests(firstFiles);
      if ([...first.failed.keys()].every((name) => forgiven.has(name))) return undefined;
      return retryFailedTests(
        api,
        cli.io,
        {
          argv,
          globs,
          retries: options.retries,
          maxFailedForRetry: options.maxFailedForRetry,
          facts: { ...facts, startedAt },
          forgiven,
          outputToStderr: out.json,
          note,
        },
        first,
      );
    };
    const ran = await runTestCommand(argv, cli.io, out.json);
    if (ran.startError) out.note(`mainline test: ${ran.startError}`);
    const files = await readJunitFiles(cli.io.cwd, globs, startedAt.getTime());
    const result = await applyQuarantine(api, { ...facts, startedAt }, ran.exitCode, files);
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
    const retried = await retryIfFlaky(opts, result, files, (line) => out.note(line));
    if (retried) {
      const verdict = retryVerdict(retried, result.commandExitCode);
      out.note(verdict.line);
      if (out.json) out.result({ ...result, exitCode: verdict.exitCode, retries: retried }, () => "");
      cli.exitCode = verdict.exitCode;
      return;
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
  retries: number;
  maxFailedForRetry: number;
}

/** 0 only when every first-run failure that was not quarantined passed in a retry. */
function retryVerdict(retried: RetryOutcome, commandExitCode: number): { exitCode: number; line: string } {
  const names = (list: readonly string[]) =>
    list.length > 5 ? `${list.slice(0, 5).join(", ")} and ${list.length - 5} more` : list.join(", ");
  const flaky = retried.flaky.map((t) => t.name);
  const flakyPart = flaky.length > 0 ? `flaky (failed, then passed on a retry): ${names(flaky)}` : "";
  if (retried.stillFailing.length === 0)
    return { exitCode: 0, line: `mainline test: ${flakyPart}; exiting 0 instead of ${commandExitCode}` };
  const failing = `still failing after ${retried.attempts.length} retr${retried.attempts.length === 1 ? "y" : "ies"} (${retried.stoppedBecause}): ${names(retried.stillFailing)}`;
  return {
    exitCode: commandExitCode,
    line: `mainline test: ${[flakyPart, failing].filter(Boolean).join("; ")}; keeping the command's exit code ${commandExitCode}`,
  };
}
