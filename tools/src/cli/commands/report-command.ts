import type { Command } from "commander";
import { readJunitFiles } from "../app/junit-files.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { collect } from "../command-options.js";

/** `mainline report`: an external CI's verdict on a merge-queue test run. */
export function registerReportCommand(program: Command, cli: CliContext): void {
  program
    .command("report")
    .description(
      "report the result of a merge-queue test run your CI ran (queues connected with an EXTERNAL runner)",
    )
    .argument("<test-run-id>", "the run id (queue get shows it; the test branch name ends with it)")
    .option("--passed", "the tests passed")
    .option("--failed", "the tests failed")
    .option("--details-url <url>", "where the CI run can be seen")
    .option("--message <text>", "a short note shown with the result")
    .option("--junit <glob>", "JUnit XML files to attach (repeat for more)", collect)
    .action(async (testRunId: string, opts: ReportOptions, command: Command) => {
      if (Boolean(opts.passed) === Boolean(opts.failed))
        throw new CliError("give exactly one of --passed or --failed");
      const junit = await readJunitFiles(cli.io.cwd, opts.junit ?? []);
      if (opts.junit && junit.length === 0) {
        throw new CliError(`--junit ${opts.junit.join(" ")} matched no file under ${cli.io.cwd}`);
      }
      await cli.api().post("/reportTestRun", {
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
  passed?: boolean;
  failed?: boolean;
  detailsUrl?: string;
  message?: string;
  junit?: string[];
}
