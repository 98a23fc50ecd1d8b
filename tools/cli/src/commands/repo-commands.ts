import type { Command } from "commander";
import { DEFAULT_PULL_REF_PATTERN } from "@mainline/contract";
import type { RepositoryConnection } from "../api/api-types.js";
import { checkRemoteExists } from "../app/check-remote.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { collect, withRepoOption } from "../command-options.js";
import { formatRepositoryRef } from "../domain/repository-ref.js";

/** `mainline repo connect|get`: the git remote Mainline builds test branches from, and how it runs tests. */
export function registerRepoCommands(program: Command, cli: CliContext): void {
  const repo = program
    .command("repo")
    .description("connect a git repository so Mainline tests and merges for real");

  withRepoOption(
    repo
      .command("connect")
      .description("set the repository's git remote and test runner")
      .requiredOption("--remote <url>", "git remote URL (a path works for a local bare repository)")
      .option("--command <shell command>", "run this in a worktree of each test commit (a COMMAND runner)")
      .option("--external", "your CI runs the tests and reports with `mainline report` (an EXTERNAL runner)")
      .option(
        "--junit <glob>",
        "JUnit XML files the command writes, relative to the worktree (repeat)",
        collect,
      )
      .option("--pull-ref-pattern <pattern>", "where PR heads live on the remote", DEFAULT_PULL_REF_PATTERN)
      .option("--credentials-secret <name>", "name of the secret holding the remote's credentials")
      .option("--no-check", "skip the `git ls-remote` check of the remote from this machine"),
  ).action(async (opts: ConnectOptions, command: Command) => {
    if (Boolean(opts.command) === Boolean(opts.external)) {
      throw new CliError('give exactly one of --command "<test command>" or --external');
    }
    // Credentials named by a secret live on Mainline's servers: this machine cannot use them to check.
    if (opts.check && !opts.credentialsSecret) await checkRemoteExists(opts.remote, cli.io.cwd);
    const connection = await cli.api().post<RepositoryConnection>("/repositories/connection", {
      repo: cli.repository(command),
      remoteUrl: opts.remote,
      pullRefPattern: opts.pullRefPattern,
      ...(opts.credentialsSecret ? { credentialsSecretName: opts.credentialsSecret } : {}),
      runner: opts.external
        ? { kind: "EXTERNAL" }
        : { kind: "COMMAND", command: opts.command, junitGlobs: opts.junit ?? [] },
    });
    cli.output(command).result(connection, () => ["Connected", ...describeConnection(connection)]);
  });

  withRepoOption(repo.command("get").description("show the repository's connection")).action(
    async (_opts: unknown, command: Command) => {
      const connection = await cli
        .api()
        .post<RepositoryConnection>("/repositories/getConnection", { repo: cli.repository(command) });
      cli
        .output(command)
        .result(connection, () =>
          connection.remoteUrl
            ? describeConnection(connection)
            : `${formatRepositoryRef(connection.repo)} is not connected`,
        );
    },
  );
}

interface ConnectOptions {
  remote: string;
  command?: string;
  external?: boolean;
  junit?: string[];
  pullRefPattern: string;
  credentialsSecret?: string;
  check: boolean;
}

function describeConnection(c: RepositoryConnection): string[] {
  const runner =
    c.runner.kind === "EXTERNAL"
      ? "EXTERNAL (CI reports with `mainline report`)"
      : `COMMAND ${JSON.stringify(c.runner.command)}` +
        (c.runner.junitGlobs.length > 0 ? `, JUnit ${c.runner.junitGlobs.join(" ")}` : "");
  return [
    `${formatRepositoryRef(c.repo)}: remote ${c.remoteUrl}`,
    `  pull refs ${c.pullRefPattern} · runner ${runner}` +
      (c.credentialsSecretName ? ` · credentials ${c.credentialsSecretName}` : ""),
  ];
}
