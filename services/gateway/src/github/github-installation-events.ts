import { callUnary } from "@mainline/kit/grpc/index";
import {
  GitHubInstallationAction,
  GitHubRepositorySelection,
  type QueueCoordinatorClient,
} from "@mainline/proto/queue";
import { installationEvent, installationRepositoriesEvent } from "./github-webhook-payloads.js";
import { parseInput } from "../http/validation.js";

const INSTALLATION_ACTIONS: Record<string, GitHubInstallationAction> = {
  created: GitHubInstallationAction.CREATED,
  new_permissions_accepted: GitHubInstallationAction.CREATED,
  deleted: GitHubInstallationAction.DELETED,
  suspend: GitHubInstallationAction.SUSPENDED,
  unsuspend: GitHubInstallationAction.UNSUSPENDED,
};

const SELECTIONS = { all: GitHubRepositorySelection.ALL, selected: GitHubRepositorySelection.SELECTED };

/**
 * An `installation` or `installation_repositories` webhook, recorded by the coordinator whether or not an
 * organisation has connected the installation yet (admins then see it as unclaimed). The answer names the
 * organisation it belongs to ("" while none).
 */
export async function recordInstallation(
  q: QueueCoordinatorClient,
  event: "installation" | "installation_repositories",
  delivery: string,
  payload: unknown,
): Promise<{ org: string; outcome: { outcome: "applied" | "ignored"; reason: string } }> {
  const fullNames = (list: { full_name: string }[] | null | undefined) =>
    (list ?? []).map((r) => r.full_name);
  let request;
  if (event === "installation") {
    const input = parseInput(installationEvent, payload);
    const action = INSTALLATION_ACTIONS[input.action];
    if (action === undefined)
      return {
        org: "",
        outcome: { outcome: "ignored", reason: `installation ${input.action} changes nothing` },
      };
    request = {
      installationId: input.installation.id,
      action,
      accountLogin: input.installation.account.login,
      host: hostOf(input.installation.html_url),
      repositorySelection: SELECTIONS[input.installation.repository_selection ?? "all"],
      repositoriesAdded: fullNames(input.repositories),
      repositoriesRemoved: [],
    };
  } else {
    const input = parseInput(installationRepositoriesEvent, payload);
    request = {
      installationId: input.installation.id,
      action: GitHubInstallationAction.REPOSITORIES_CHANGED,
      accountLogin: input.installation.account.login,
      host: hostOf(input.installation.html_url),
      repositorySelection: input.repository_selection
        ? SELECTIONS[input.repository_selection]
        : GitHubRepositorySelection.UNSPECIFIED,
      repositoriesAdded: fullNames(input.repositories_added),
      repositoriesRemoved: fullNames(input.repositories_removed),
    };
  }
  const { installation } = await callUnary(q.recordGitHubInstallationEvent.bind(q), {
    ...request,
    deliveryId: delivery,
    occurredAt: new Date(),
  });
  return {
    org: installation?.org ?? "",
    outcome: {
      outcome: "applied",
      reason: installation?.org
        ? `installation ${request.installationId} of ${request.accountLogin} (organisation ${installation.org}) updated`
        : `installation ${request.installationId} of ${request.accountLogin} recorded; not yet connected to an organisation`,
    },
  };
}

/** The host of the repositories, from the installation's page (github.com or an Enterprise Server host). */
function hostOf(htmlUrl: string | undefined): string {
  if (!htmlUrl) return "";
  return new URL(htmlUrl).host;
}
