import { Command } from "commander";
import type { CliContext } from "./cli-context.js";
import { registerAdminCommands } from "./commands/admin-commands.js";
import { registerFlakyCommands } from "./commands/flaky-commands.js";
import { registerLogsCommand } from "./commands/logs-command.js";
import { registerInsightsQueueCommand } from "./commands/insights-queue-command.js";
import { registerQueueListCommand } from "./commands/queue-list-command.js";
import { registerGitHubCommands } from "./commands/github-commands.js";
import { registerInsightsTestsCommand } from "./commands/insights-tests-command.js";
import { registerPrEventCommand } from "./commands/pr-event-command.js";
import { registerPriorityCommand } from "./commands/priority-command.js";
import { registerPullRequestCommands } from "./commands/pull-request-commands.js";
import { registerQueueCommands } from "./commands/queue-commands.js";
import { registerRepoCommands } from "./commands/repo-commands.js";
import { registerReportCommand } from "./commands/report-command.js";
import { registerSimulateCommand } from "./commands/simulate-command.js";
import { registerTargetsCommand } from "./commands/targets-command.js";
import { registerTestCommand } from "./commands/test-command.js";
import { registerWebhookCommands } from "./commands/webhook-commands.js";

/** The `mainline` command tree. A new program per run, so that in-process runs (tests, the demo) share nothing. */
export function buildProgram(cli: CliContext): Command {
  const program = new Command("mainline")
    .description("Command-line client of a Mainline merge queue and flaky-test service (its HTTP API, /v1)")
    .option("--json", "print the result as JSON (for scripts); progress and notes go to stderr")
    .showHelpAfterError("(add --help for usage)")
    .addHelpText(
      "after",
      "\nEnvironment: MAINLINE_URL (default http://127.0.0.1:8080), MAINLINE_TOKEN (required; `make dev` prints one),\n" +
        "MAINLINE_REPO and MAINLINE_TARGET_BRANCH (defaults for --repo and --target).\n" +
        "Exit codes: 0 done, 1 the service refused or a PR did not merge, 2 bad usage, 3 service unreachable;\n" +
        "`mainline test` exits with its command's code unless quarantine forgives every failure.",
    );
  registerPullRequestCommands(program, cli);
  registerPriorityCommand(program, cli);
  registerQueueCommands(program, cli);
  registerQueueListCommand(program, cli);
  registerLogsCommand(program, cli);
  registerTargetsCommand(program, cli);
  registerReportCommand(program, cli);
  registerRepoCommands(program, cli);
  registerPrEventCommand(program, cli);
  registerAdminCommands(program, cli);
  registerWebhookCommands(program, cli);
  registerGitHubCommands(program, cli);
  registerTestCommand(program, cli);
  registerFlakyCommands(program, cli);
  registerInsightsTestsCommand(program, cli);
  registerSimulateCommand(program, cli);
  registerInsightsQueueCommand(program, cli);
  return program;
}
