import type { Command } from "commander";
import type { SubmittedPullRequest } from "../api/api-types.js";
import type { CliContext } from "../cli-context.js";
import { CliError, EXIT } from "../cli-error.js";
import { withQueueOptions } from "../command-options.js";
import { parsePullRequestRef } from "../domain/pull-request-ref.js";

/** Where the gateway serves a COMMAND run's output; any other failure link is an external CI's page. */
const OUTPUT_PATH = /\/v1\/test-runs\/([A-Za-z0-9_-]{1,128})\/output$/;

/**
 * `mainline logs <pr>`: the output of the run that failed the PR, fetched with the token (the "why it failed"
 * link answers 401 to a browser or curl without one). An external CI's failure is a link to its page.
 */
export function registerLogsCommand(program: Command, cli: CliContext): void {
  withQueueOptions(
    program
      .command("logs")
      .description("print the output of the test run that failed a pull request")
      .argument("<pr>", "the PR number or head branch"),
  ).action(async (prText: string, _opts: unknown, command: Command) => {
    const queue = cli.queueKey(command);
    const api = cli.api();
    const out = cli.output(command);
    const pr = await api.post<SubmittedPullRequest>("/getSubmittedPullRequest", {
      ...queue,
      pr: parsePullRequestRef(prText),
    });
    const link = pr.failureDetailsUrl;
    if (!link) {
      throw new CliError(
        pr.state === "FAILED"
          ? `PR #${pr.prNumber} failed (${pr.failureReason ?? "no reason given"}) without a run output to show`
          : `PR #${pr.prNumber} is ${pr.state}: no failed run to show`,
        EXIT.failed,
      );
    }
    const testRunId = OUTPUT_PATH.exec(new URL(link, "http://x").pathname)?.[1];
    if (testRunId === undefined) {
      out.result({ prNumber: pr.prNumber, failureDetailsUrl: link }, () => [
        `PR #${pr.prNumber} ${pr.state}: its CI reported the failure; see ${link}`,
      ]);
      return;
    }
    const output = await api.text(`/test-runs/${encodeURIComponent(testRunId)}/output`);
    out.note(`PR #${pr.prNumber} ${pr.state} (${pr.failureReason ?? "-"}): output of test run ${testRunId}`);
    out.result({ prNumber: pr.prNumber, testRunId, output }, () => output.replace(/\n$/, ""));
  });
}
