import { InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import {
  GitHubInstallationAction,
  GitHubRepositorySelection,
  type GitHubInstallation,
  type QueueCoordinatorServer,
} from "@mainline/proto/queue";
import {
  coversRepository,
  repositorySlug,
  type GitHubInstallationState,
  type InstallationChange,
  type RepositorySelection,
} from "../domain/github-installation.js";
import { MAX_BYTES, repoRef } from "../app/queue-key.js";
import type { GitHubInstallations } from "../store/github-installations.js";

type InstallationHandlers = Pick<
  AsyncImplementation<QueueCoordinatorServer>,
  | "connectGitHubInstallation"
  | "disconnectGitHubInstallation"
  | "listGitHubInstallations"
  | "getGitHubInstallation"
  | "resolveGitHubInstallation"
  | "recordGitHubInstallationEvent"
>;

/** GitHub's ids are positive integers below 2^53 (they travel as JSON numbers). */
function installationId(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new InvalidArgumentError("installationId", "must be a positive integer below 2^53");
  return value;
}

function org(value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new InvalidArgumentError("org", "is required");
  if (Buffer.byteLength(trimmed) > MAX_BYTES.org)
    throw new InvalidArgumentError("org", `must be at most ${MAX_BYTES.org} bytes (UTF-8)`);
  return trimmed;
}

/** A GitHub login: 1..39 characters (up to 255 on Enterprise Server), letters, digits, '-', '_' and '.'. */
function login(field: string, value: string): string {
  if (value.length > MAX_BYTES.owner || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value))
    throw new InvalidArgumentError(field, "must be a GitHub account login (letters, digits, '-', '_', '.')");
  return value;
}

function host(value: string): string {
  if (value.length > MAX_BYTES.host || !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(value))
    throw new InvalidArgumentError("host", "must be a host name such as github.com");
  return value.toLowerCase();
}

const SELECTION: Record<RepositorySelection, GitHubRepositorySelection> = {
  ALL: GitHubRepositorySelection.ALL,
  SELECTED: GitHubRepositorySelection.SELECTED,
  UNKNOWN: GitHubRepositorySelection.UNSPECIFIED,
};

function selectionOf(value: GitHubRepositorySelection): RepositorySelection {
  return value === GitHubRepositorySelection.ALL
    ? "ALL"
    : value === GitHubRepositorySelection.SELECTED
      ? "SELECTED"
      : "UNKNOWN";
}

export function installationToProto(s: GitHubInstallationState): GitHubInstallation {
  return {
    installationId: s.installationId,
    org: s.org,
    accountLogin: s.accountLogin,
    host: s.host,
    repositorySelection: SELECTION[s.repositorySelection],
    repositories: s.repositories,
    suspended: s.suspended,
    deleted: s.deleted,
    ...(s.connectedAt ? { connectedAt: new Date(s.connectedAt) } : {}),
    updatedAt: new Date(s.updatedAt),
    ...(s.lastEventAt ? { lastEventAt: new Date(s.lastEventAt) } : {}),
  };
}

const MAX_REPOSITORIES_PER_EVENT = 5000;

function slugs(field: string, values: string[]): string[] {
  if (values.length > MAX_REPOSITORIES_PER_EVENT)
    throw new InvalidArgumentError(field, `must hold at most ${MAX_REPOSITORIES_PER_EVENT} repositories`);
  return values.map((v) => {
    const [owner, name, ...rest] = v.split("/");
    if (!owner || !name || rest.length > 0 || v.length > MAX_BYTES.owner + MAX_BYTES.name + 1)
      throw new InvalidArgumentError(field, 'must hold "owner/name" repository names');
    return repositorySlug(owner, name);
  });
}

/** The installation -> organisation mapping and GitHub's installation webhooks. */
export function githubInstallationsApi(deps: {
  installations: GitHubInstallations;
  clock: () => Date;
}): InstallationHandlers {
  const { installations } = deps;
  return {
    async connectGitHubInstallation(req) {
      const state = await installations.claim(
        org(req.org),
        installationId(req.installationId),
        {
          ...(req.accountLogin ? { accountLogin: login("accountLogin", req.accountLogin) } : {}),
          ...(req.host ? { host: host(req.host) } : {}),
        },
        deps.clock(),
      );
      return { installation: installationToProto(state) };
    },

    async disconnectGitHubInstallation(req) {
      const id = installationId(req.installationId);
      if (!(await installations.release(org(req.org), id, deps.clock())))
        throw new NotFoundError(`GitHub installation ${id} is not connected to this organisation`);
      return {};
    },

    async listGitHubInstallations(req) {
      const list = await installations.list(req.unclaimedOnly ? "" : org(req.org));
      return { installations: list.map(installationToProto) };
    },

    async getGitHubInstallation(req) {
      const id = installationId(req.installationId);
      const state = await installations.get(id);
      if (!state) throw new NotFoundError(`GitHub installation ${id} is unknown`);
      return { installation: installationToProto(state) };
    },

    async resolveGitHubInstallation(req) {
      const o = org(req.org);
      const repo = repoRef(req.repo);
      const found = (await installations.list(o)).find((s) => coversRepository(s, o, repo));
      if (!found)
        throw new NotFoundError(
          `no active GitHub installation of this organisation covers ${repo.host}/${repo.owner}/${repo.name}`,
        );
      return { installation: installationToProto(found) };
    },

    async recordGitHubInstallationEvent(req) {
      const id = installationId(req.installationId);
      const selection = selectionOf(req.repositorySelection);
      const added = slugs("repositoriesAdded", req.repositoriesAdded);
      const removed = slugs("repositoriesRemoved", req.repositoriesRemoved);
      const change: InstallationChange | null =
        req.action === GitHubInstallationAction.CREATED
          ? { type: "CREATED", selection, repositories: added }
          : req.action === GitHubInstallationAction.DELETED
            ? { type: "DELETED" }
            : req.action === GitHubInstallationAction.SUSPENDED
              ? { type: "SUSPENDED" }
              : req.action === GitHubInstallationAction.UNSUSPENDED
                ? { type: "UNSUSPENDED" }
                : req.action === GitHubInstallationAction.REPOSITORIES_CHANGED
                  ? { type: "REPOSITORIES_CHANGED", selection, added, removed }
                  : null;
      if (!change) throw new InvalidArgumentError("action", "must be a known installation action");
      const state = await installations.record(
        id,
        change,
        {
          accountLogin: req.accountLogin ? login("accountLogin", req.accountLogin) : "",
          host: req.host ? host(req.host) : "",
        },
        deps.clock(),
      );
      return { installation: installationToProto(state) };
    },
  };
}
