import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { withQueueOptions } from "../command-options.js";
import { parsePullRequestNumber } from "../domain/pull-request-ref.js";

/** `mainline targets set`: the impacted targets of a PR at a commit (a list, or every target). */
export function registerTargetsCommand(program: Command, cli: CliContext): void {
  const targets = program.command("targets").description("impacted targets of pull requests");
  withQueueOptions(
    targets
      .command("set")
      .description(
        "set the targets a PR's commit impacts (parallel queues test PRs with disjoint targets apart)",
      )
      .argument("<pr>", "the PR number")
      .argument("[targets...]", "names of the impacted targets")
      .requiredOption("--sha <commit>", "the PR head commit the targets were computed for")
      .option("--all", "the PR impacts every target"),
  ).action(
    async (prText: string, names: string[], opts: { sha: string; all?: boolean }, command: Command) => {
      const number = parsePullRequestNumber(prText);
      if (opts.all && names.length > 0) throw new CliError("give target names or --all, not both");
      if (!opts.all && names.length === 0) throw new CliError("give the impacted target names, or --all");
      const queue = cli.queueKey(command);
      await cli.api().post("/setImpactedTargets", {
        ...queue,
        pr: { number, sha: opts.sha },
        impactedTargets: opts.all ? "ALL" : names,
      });
      cli
        .output(command)
        .result(
          { pr: number, impactedTargets: opts.all ? "ALL" : names },
          () =>
            `PR #${number} at ${opts.sha.slice(0, 12)} impacts ${opts.all ? "every target" : names.join(", ")}`,
        );
    },
  );
}
