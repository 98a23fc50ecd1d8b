import type { Command } from "commander";
import { parsePriorityText, PRIORITY_NAMES, PRIORITY_RANGE, PRIORITY_RULE } from "@mainline/contract";
import type { CliContext } from "../cli-context.js";
import { CliError, EXIT } from "../cli-error.js";
import { withQueueOptions } from "../command-options.js";
import { parsePullRequestNumber } from "../domain/pull-request-ref.js";

/** `mainline priority <pr> <priority>`: change a queued PR's priority without losing its place in line. */
export function registerPriorityCommand(program: Command, cli: CliContext): void {
  withQueueOptions(
    program
      .command("priority")
      .description(
        "change the priority of a pull request in the queue (a PR already under test keeps its place and run)",
      )
      .argument("<pr>", "the PR number")
      .argument("<priority>", `${PRIORITY_RULE} (0 is most urgent)`),
  ).action(async (prText: string, priorityText: string, _opts: unknown, command: Command) => {
    const number = parsePullRequestNumber(prText);
    const priority = parsePriorityArgument(priorityText);
    const queue = cli.queueKey(command);
    const changed = await cli
      .api()
      .post<{ priorityValue: number; priorityName: string }>("/setPullRequestPriority", {
        ...queue,
        pr: { number },
        priority,
      });
    cli
      .output(command)
      .result(
        { pr: number, ...changed },
        () => `PR #${number} now has priority ${changed.priorityName || changed.priorityValue}`,
      );
  });
}

/** Checked here too, so a typo is named before any call; the service checks again. */
function parsePriorityArgument(text: string): string | number {
  const priority = parsePriorityText(text.trim());
  if (priority !== undefined) return priority;
  const { min, max } = PRIORITY_RANGE;
  throw new CliError(
    `<priority> must be ${PRIORITY_NAMES.join(", ")} or an integer ${min}-${max}, not "${text}"`,
    EXIT.usage,
  );
}
