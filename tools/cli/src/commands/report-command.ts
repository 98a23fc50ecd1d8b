import type { Command } from "commander";
import { readJunitFiles } from "../app/junit-files.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { testRunOfPullRequest } from "../app/test-run-of-pull-request.js";
import { collect, wholeNumber } from "../command-options.js";
import { parsePullRequestNumber } from "../domain/pull-request-ref.js";

/** `mainline report`: an external CI's verdict on a merge-queue test run. */
export function registerReportCommand(program: Command, cli: CliContext): void {
  program
    .command("report")
    .description(
      "report the result of a merge-queue test run your CI ran (an EXTERNAL runner, or no connected repository)",
    )
    .argument("[test-run-id]", "the run id (queue get shows it; the test branch name ends with it)")
    .option("--pr <number>", "instead of the run id: the run testing this PR (waits for it to start)")
    .option("--repo <host/owner/name>", "with --pr: the repository (default: $MAINLINE_REPO)")
    .option(
      "--target <branch>",
      "with --pr: the queue's target branch (default: $MAINLINE_TARGET_BRANCH or main)",
    )
    .option("--timeout <minutes>", "with --pr: how long to wait for the PR's run to start", wholeNumber(1), 5)
    .option("--passed", "the tests passed")
    .option("--failed", "the tests failed")
    .option("--details-url <url>", "where the CI run can be seen")
    .option("--message <text>", "a short note shown with the result")
    .option("--junit <glob>", "JUnit XML files to attach (repeat for more)", collect)
    .action(async (runIdArgument: string | undefined, opts: ReportOptions, command: Command) => {
      if (Boolean(opts.passed) === Boolean(opts.failed))
        throw new CliError("give exactly one of --passed or --failed");
      if ((runIdArgument === undefined) === (opts.pr === undefined))
        throw new CliError("give the test run id, or --pr <number> for the run testing that PR (not both)");
      const prNumber = opts.pr === undefined ? undefined : parsePullRequestNumber(opts.pr, "--pr");
      const junit = await readJunitFiles(cli.io.cwd, opts.junit ?? []);
      if (opts.junit && junit.length === 0) {
        throw new CliError(`--junit ${opts.junit.join(" ")} matched no file under ${cli.io.cwd}`);
      }
      const api = cli.api();
      const testRunId =
        runIdArgument ??
        (await testRunOfPullRequest(api, cli.queueKey(command), prNumber!, opts.timeout * 60_000));
      await api.post("/reportTestRun", {
        testRunId,
        passed: Boolean(opts.passed),
        ...(opts.detailsUrl ? { detailsUrl: opts.detailsUrl } : {}),
        ...(opts.message ? { message: opts.message } : {}),
        junit: junit.map((file) => file.content),
      });
      cli
        .output(command)
        .result(
          { testRunId, passed: Boolean(opts.passed), junitFiles: junit.length },
          () =>
            `Reported run ${testRunId} as ${opts.passed ? "passed" : "failed"}` +
            (junit.length > 0 ? ` with ${junit.length} JUnit file(s)` : ""),
        );
    });
}

interface ReportOptions {
  pr?: string;
  timeout: number;
  passed?: boolean;
  failed?: boolean;
  detailsUrl?: string;
  message?: string;
  junit?: string[];
}
