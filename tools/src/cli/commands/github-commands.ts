import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { formatTable } from "../output/table.js";

export interface GitHubInstallationView {
  installationId: number;
  org: string;
  accountLogin: string;
  host: string;
  repositorySelection: "all" | "selected" | "unknown";
  repositories: string[];
  suspended: boolean;
  deleted: boolean;
  connectedAt: string | null;
  updatedAt: string;
  lastEventAt: string | null;
}

interface GitHubStatus {
  configured: boolean;
  apiUrl: string;
  installations: GitHubInstallationView[];
  unclaimedInstallations?: GitHubInstallationView[];
  recentDeliveries: {
    delivery: string;
    event: string;
    action: string;
    repository: string;
    outcome: string;
    reason: string;
    at: string;
  }[];
}

/** GitHub's installation ids are positive integers; anything else is a usage error before any request. */
export function installationIdArgument(text: string): number {
  if (!/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new CliError(
      `installation id must be a positive integer (GitHub's installation id), not ${JSON.stringify(text)}`,
    );
  return Number(text);
}

function coverage(i: GitHubInstallationView): string {
  const state = i.deleted ? "uninstalled" : i.suspended ? "suspended" : "active";
  const repos =
    i.repositorySelection === "selected"
      ? `${i.repositories.length} selected ${i.repositories.length === 1 ? "repository" : "repositories"}`
      : i.repositorySelection === "all"
        ? "all repositories"
        : "repositories not yet listed by GitHub";
  return `${state}, ${repos}`;
}

/** `mainline github connect|disconnect|status`: the GitHub App's installations and what Mainline sees of them. */
export function registerGitHubCommands(program: Command, cli: CliContext): void {
  const github = program.command("github").description("the GitHub App: installations and their webhooks");

  github
    .command("connect")
    .description("connect a GitHub App installation to an organisation (admin token)")
    .argument("<installation-id>", "the id GitHub shows in the installation's settings URL")
    .option("--org <slug>", "the organisation (default: this token's)")
    .option(
      "--account <login>",
      "the GitHub account it is installed on (GitHub's installation event says it too)",
    )
    .action(async (id: string, opts: { org?: string; account?: string }, command: Command) => {
      const installationId = installationIdArgument(id);
      const { installation } = await cli
        .api()
        .post<{ installation: GitHubInstallationView }>("/github/installations", {
          installationId,
          ...(opts.org ? { org: opts.org } : {}),
          ...(opts.account ? { accountLogin: opts.account } : {}),
        });
      cli
        .output(command)
        .result({ installation }, () => [
          `Connected GitHub installation ${installation.installationId}` +
            `${installation.accountLogin ? ` (${installation.accountLogin} on ${installation.host})` : ""}` +
            ` to organisation ${installation.org}: ${coverage(installation)}.`,
        ]);
    });

  github
    .command("disconnect")
    .description("disconnect a GitHub App installation from its organisation (admin token)")
    .argument("<installation-id>", "the installation's id")
    .option("--org <slug>", "the organisation (default: this token's)")
    .action(async (id: string, opts: { org?: string }, command: Command) => {
      const installationId = installationIdArgument(id);
      await cli
        .api()
        .post("/github/installations/disconnect", { installationId, ...(opts.org ? { org: opts.org } : {}) });
      cli
        .output(command)
        .result({ installationId }, () => `Disconnected GitHub installation ${installationId}.`);
    });

  github
    .command("status")
    .description("what Mainline sees of the GitHub App: installations and the latest webhook deliveries")
    .action(async (_opts: unknown, command: Command) => {
      const status = await cli.api().get<GitHubStatus>("/github/status");
      cli.output(command).result(status, () => {
        if (!status.configured)
          return "The GitHub App is not configured on this Mainline (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_WEBHOOK_SECRET).";
        const lines: string[] = [`GitHub App on ${status.apiUrl}`];
        lines.push(
          ...(status.installations.length === 0
            ? [
                "No installation is connected to this organisation: `mainline github connect <installation-id>`.",
              ]
            : formatTable(
                ["INSTALLATION", "ACCOUNT", "HOST", "STATE", "LAST INSTALLATION EVENT"],
                status.installations.map((i) => [
                  String(i.installationId),
                  i.accountLogin || "-",
                  i.host || "-",
                  coverage(i),
                  i.lastEventAt ?? "-",
                ]),
              )),
        );
        if (status.unclaimedInstallations && status.unclaimedInstallations.length > 0)
          lines.push(
            "Installations no organisation has connected:",
            ...formatTable(
              ["INSTALLATION", "ACCOUNT", "HOST"],
              status.unclaimedInstallations.map((i) => [
                String(i.installationId),
                i.accountLogin || "-",
                i.host || "-",
              ]),
            ),
          );
        lines.push(
          ...(status.recentDeliveries.length === 0
            ? ["No webhook delivery received for this organisation yet."]
            : formatTable(
                ["AT", "EVENT", "REPOSITORY", "OUTCOME", "REASON"],
                status.recentDeliveries.map((d) => [
                  d.at,
                  d.action ? `${d.event}.${d.action}` : d.event,
                  d.repository || "-",
                  d.outcome,
                  d.reason.length > 100 ? `${d.reason.slice(0, 97)}...` : d.reason,
                ]),
              )),
        );
        return lines;
      });
    });
}
