import type { Collection, Store } from "@mainline/kit/store/index";
import { AlreadyExistsError } from "@mainline/kit/errors/index";
import {
  applyInstallationChange,
  emptyInstallation,
  type GitHubInstallationState,
  type InstallationChange,
} from "../domain/github-installation.js";

interface InstallationDocument extends GitHubInstallationState {
  /** The installation id as a string: one document per installation, whichever organisation claims it. */
  _id: string;
}

/**
 * GitHub App installations, one document each. The organisation a document names is changed only by a
 * compare-and-set on the organisation it had, so two organisations claiming the same installation at once
 * cannot both win.
 */
export class GitHubInstallations {
  private constructor(private readonly docs: Collection<InstallationDocument>) {}

  static async open(store: Store): Promise<GitHubInstallations> {
    const docs = store.collection<InstallationDocument>("github_installations");
    await docs.createIndex({ org: 1 });
    return new GitHubInstallations(docs);
  }

  async get(installationId: number): Promise<GitHubInstallationState | null> {
    const doc = await this.docs.findOne({ _id: String(installationId) });
    return doc ? stripId(doc) : null;
  }

  async list(org: string): Promise<GitHubInstallationState[]> {
    const docs = await this.docs.find({ org }, { sort: { _id: 1 } });
    return docs.map(stripId);
  }

  /** Claims an installation for `org`; AlreadyExistsError when another organisation has it. */
  async claim(
    org: string,
    installationId: number,
    facts: { accountLogin?: string; host?: string },
    now: Date,
  ): Promise<GitHubInstallationState> {
    const at = now.toISOString();
    for (;;) {
      const current = await this.get(installationId);
      if (current && current.org !== "" && current.org !== org)
        throw new AlreadyExistsError(
          `GitHub installation ${installationId} is already connected to another organisation; ` +
            "an installation serves one organisation",
        );
      const base = current ?? emptyInstallation(installationId, at);
      const next: GitHubInstallationState = {
        ...base,
        org,
        accountLogin: facts.accountLogin ?? base.accountLogin,
        host: facts.host ?? base.host,
        connectedAt: base.org === org && base.connectedAt ? base.connectedAt : at,
        updatedAt: at,
      };
      if (await this.replaceIf(installationId, current, next)) return next;
    }
  }

  /** Unmaps the installation from `org`; false when it is not that organisation's. */
  async release(org: string, installationId: number, now: Date): Promise<boolean> {
    for (;;) {
      const current = await this.get(installationId);
      if (!current || current.org !== org) return false;
      const next = { ...current, org: "", connectedAt: null, updatedAt: now.toISOString() };
      if (await this.replaceIf(installationId, current, next)) return true;
    }
  }

  /** Applies what an installation webhook says, whether or not the installation is mapped yet. */
  async record(
    installationId: number,
    change: InstallationChange,
    facts: { accountLogin: string; host: string },
    now: Date,
  ): Promise<GitHubInstallationState> {
    const at = now.toISOString();
    for (;;) {
      const current = await this.get(installationId);
      const next = applyInstallationChange(current ?? emptyInstallation(installationId, at), change, {
        ...facts,
        at,
      });
      if (await this.replaceIf(installationId, current, next)) return next;
    }
  }

  /** Replaces the document only if it still holds `expected` (by org and updatedAt); false: lost a race. */
  private async replaceIf(
    installationId: number,
    expected: GitHubInstallationState | null,
    next: GitHubInstallationState,
  ): Promise<boolean> {
    const _id = String(installationId);
    if (expected === null) {
      try {
        await this.docs.insertOne({ _id, ...next });
        return true;
      } catch (error) {
        // Both adapters report a duplicate _id as AlreadyExistsError: another writer inserted first.
        if (error instanceof AlreadyExistsError) return false;
        throw error;
      }
    }
    const result = await this.docs.replaceOne(
      { _id, org: expected.org, updatedAt: expected.updatedAt },
      { _id, ...next },
    );
    return result.matchedCount === 1;
  }
}

function stripId(doc: InstallationDocument): GitHubInstallationState {
  const { _id, ...state } = doc;
  void _id;
  return state;
}
