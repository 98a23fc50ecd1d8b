/**
 * A GitHub App installation as the coordinator keeps it, and the rules that say which organisation may act on
 * which repository through it. Pure: the store and the gRPC handlers apply these.
 */
export type RepositorySelection = "ALL" | "SELECTED" | "UNKNOWN";

export interface GitHubInstallationState {
  installationId: number;
  /** "" until an admin maps it: GitHub may tell of an installation before anyone claims it. */
  org: string;
  accountLogin: string;
  host: string;
  repositorySelection: RepositorySelection;
  /** "owner/name", lowercase, when the selection is SELECTED. */
  repositories: string[];
  suspended: boolean;
  deleted: boolean;
  connectedAt: string | null;
  updatedAt: string;
  lastEventAt: string | null;
}

export type InstallationChange =
  | { type: "CREATED"; selection: RepositorySelection; repositories: string[] }
  | { type: "DELETED" }
  | { type: "SUSPENDED" }
  | { type: "UNSUSPENDED" }
  | { type: "REPOSITORIES_CHANGED"; selection: RepositorySelection; added: string[]; removed: string[] };

/** At most this many repositories are kept per installation (GitHub's own cap on a selection is 100 per call). */
export const MAX_INSTALLATION_REPOSITORIES = 5000;

export function emptyInstallation(installationId: number, now: string): GitHubInstallationState {
  return {
    installationId,
    org: "",
    accountLogin: "",
    host: "",
    repositorySelection: "UNKNOWN",
    repositories: [],
    suspended: false,
    deleted: false,
    connectedAt: null,
    updatedAt: now,
    lastEventAt: null,
  };
}

/** "owner/name" as stored: GitHub compares both case-insensitively. */
export function repositorySlug(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

/** What an installation webhook changes. Idempotent: applying the same change twice gives the same state. */
export function applyInstallationChange(
  s: GitHubInstallationState,
  change: InstallationChange,
  facts: { accountLogin: string; host: string; at: string },
): GitHubInstallationState {
  const next: GitHubInstallationState = {
    ...s,
    accountLogin: facts.accountLogin || s.accountLogin,
    host: facts.host || s.host,
    updatedAt: facts.at,
    lastEventAt: facts.at,
  };
  switch (change.type) {
    case "CREATED":
      return {
        ...next,
        deleted: false,
        suspended: false,
        repositorySelection: change.selection,
        repositories: change.selection === "SELECTED" ? normalise(change.repositories) : [],
      };
    case "DELETED":
      return { ...next, deleted: true };
    case "SUSPENDED":
      return { ...next, suspended: true };
    case "UNSUSPENDED":
      return { ...next, suspended: false };
    case "REPOSITORIES_CHANGED": {
      const removed = new Set(change.removed.map((r) => r.toLowerCase()));
      const kept = s.repositories.filter((r) => !removed.has(r));
      return {
        ...next,
        repositorySelection: change.selection === "UNKNOWN" ? s.repositorySelection : change.selection,
        repositories: normalise([...kept, ...change.added]),
      };
    }
  }
}

function normalise(repositories: string[]): string[] {
  return [...new Set(repositories.map((r) => r.toLowerCase()))]
    .sort()
    .slice(0, MAX_INSTALLATION_REPOSITORIES);
}

/**
 * Whether Mainline may act on `owner/name` at `host` through this installation for `org`: mapped to that org,
 * active, on the same host, the repository owned by the installation's account, and (for a selection) listed.
 * An installation whose coverage GitHub has not told yet (UNKNOWN) covers the account's repositories: the
 * webhooks of an installation only ever concern repositories it covers.
 */
export function coversRepository(
  s: GitHubInstallationState,
  org: string,
  repo: { host: string; owner: string; name: string },
): boolean {
  if (s.org === "" || s.org !== org || s.deleted || s.suspended) return false;
  if (s.host !== "" && s.host.toLowerCase() !== repo.host.toLowerCase()) return false;
  if (s.accountLogin !== "" && s.accountLogin.toLowerCase() !== repo.owner.toLowerCase()) return false;
  if (s.repositorySelection === "SELECTED")
    return s.repositories.includes(repositorySlug(repo.owner, repo.name));
  return true;
}
