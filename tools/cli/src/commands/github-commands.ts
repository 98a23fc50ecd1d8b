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

/** One call Mainline made (or is making) to GitHub: GET /v1/github/calls. */
export interface GitHubCallView {
  id: string;
  kind: string;
  repository: string;
  host: string;
  prNumber: number;
  state: "pending" | "sent" | "gave_up";
  attempts: number;
  lastError?: string;
  title?: string;
  updatedAt: string;
}

const CALL_STATE: Record<GitHubCallView["state"], string> = {
  sent: "sent",
  pending: "pending",
  gave_up: "given up",
};

function callDetail(c: GitHubCallView): string {
  const detail = c.state === "sent" ? (c.title ?? "") : (c.lastError ?? c.title ?? "");
  return detail.length > 100 ? `${detail.slice(0, 97)}...` : detail || "-";
}

/** The --calls count: 0 shows none, at most 200 (the gateway's bound). */
export function callsArgument(text: string): number {
  if (!/^\d{1,3}$/.test(text) || Number(text) > 200)
    throw new CliError(`--calls must be an integer from 0 to 200, not ${JSON.stringify(text)}`);
  return Number(text);
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
    .description(
      "what Mainline sees of the GitHub App: installations, the latest webhook deliveries and the latest calls to GitHub",
    )
    .option("--calls <n>", "how many recent calls to GitHub to show (0-200)", callsArgument, 20)
    .action(async (opts: { calls: number }, command: Command) => {
      const status = await cli.api().get<GitHubStatus>("/github/status");
      // The calls come from the webhooks service: when it cannot answer, the rest of the status still shows.
      let recentCalls: GitHubCallView[] | undefined;
      let callsError: string | undefined;
      if (status.configured && opts.calls > 0) {
        try {
          recentCalls = (
            await cli.api().get<{ calls: GitHubCallView[] }>(`/github/calls?limit=${opts.calls}`)
          ).calls;
        } catch (error) {
          callsError = error instanceof Error ? error.message : String(error);
        }
      }
      const shown = {
        ...status,
        ...(recentCalls ? { recentCalls } : {}),
        ...(callsError !== undefined ? { callsError } : {}),
      };
      cli.output(command).result(shown, () => {
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
        if (callsError !== undefined) lines.push(`Calls to GitHub: not available (${callsError}).`);
        else if (recentCalls !== undefined)
          lines.push(
            ...(recentCalls.length === 0
              ? ["No call to GitHub made for this organisation yet."]
              : [
                  "Calls to GitHub (check runs and comments, most recent first):",
                  ...formatTable(
                    ["AT", "KIND", "PULL REQUEST", "STATE", "ATTEMPTS", "DETAIL"],
                    recentCalls.map((c) => [
                      c.updatedAt,
                      c.kind,
                      `${c.repository}#${c.prNumber}`,
                      CALL_STATE[c.state] ?? c.state,
                      String(c.attempts),
                      callDetail(c),
                    ]),
                  ),
                ]),
          );
        return lines;
      });
    });
}
