import type { Command } from "commander";
import type { PullRequestEvent } from "../api/api-types.js";
import { commitOf } from "../app/git-facts.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { withRepoOption } from "../command-options.js";
import { parsePullRequestNumber } from "../domain/pull-request-ref.js";

const ACTIONS = ["opened", "synchronize", "closed", "reopened", "edited"] as const;

/**
 * `mainline pr event`: tells Mainline about a pull request on a git server without a code-host integration,
 * as the GitHub-shaped `pull_request` event the gateway takes from every code host.
 */
export function registerPrEventCommand(program: Command, cli: CliContext): void {
  const pr = program.command("pr").description("pull requests of repositories without a hosted code host");
  withRepoOption(
    pr
      .command("event")
      .description("post a pull_request event (opened, synchronize, closed, reopened, edited)")
      .argument("<action>", ACTIONS.join(", "))
      .argument("<pr>", "the PR number")
      .requiredOption("--head <branch>", "the PR's head branch")
      .option("--sha <commit>", "the head commit (default: `git rev-parse <head>` in this directory)")
      .option("--base <branch>", "the branch the PR targets", "main")
      .option("--title <text>", "the PR title (default: PR #<number>)")
      .option("--author <login>", "who opened it", "mainline-cli")
      .option("--merged", "with closed: the PR was merged elsewhere"),
  ).action(async (actionText: string, prText: string, opts: EventOptions, command: Command) => {
    const action = ACTIONS.find((a) => a === actionText.toLowerCase());
    if (action === undefined) {
      throw new CliError(`the action must be one of ${ACTIONS.join(", ")} (got "${actionText}")`);
    }
    const number = parsePullRequestNumber(prText);
    const repo = cli.repository(command);
    const sha = opts.sha ?? (await commitOf(cli.io.cwd, opts.head));
    if (!sha) {
      throw new CliError(
        `--sha is missing and ${opts.head} is not a commit in ${cli.io.cwd}: give --sha <head commit>`,
      );
    }
    const event: PullRequestEvent = {
      action,
      number,
      pull_request: {
        title: opts.title ?? `PR #${number}`,
        state: action === "closed" ? "closed" : "open",
        merged: action === "closed" ? Boolean(opts.merged) : false,
        user: { login: opts.author },
        head: { ref: opts.head, sha },
        base: { ref: opts.base },
      },
      repository: {
        name: repo.name,
        owner: { login: repo.owner },
        html_url: `https://${repo.host}/${repo.owner}/${repo.name}`,
      },
    };
    await cli.api().post("/code-host/pull-request-events", event);
    cli
      .output(command)
      .result(event, () => `PR #${number} ${action}: ${opts.head} at ${sha.slice(0, 12)} → ${opts.base}`);
  });
}

interface EventOptions {
  head: string;
  sha?: string;
  base: string;
  title?: string;
  author: string;
  merged?: boolean;
}
