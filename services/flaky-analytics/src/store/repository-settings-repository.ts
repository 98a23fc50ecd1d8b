import type { Collection, Store } from "@mainline/kit/store/index";
import { DEFAULT_QUARANTINE_SETTINGS, DEFAULT_STATUS_SETTINGS } from "../domain/index.js";
import type { RepositoryRef } from "../domain/index.js";
import type { RepositoryDocument } from "./documents.js";
import { repositorySpelling } from "./repository-key.js";

export const DEFAULT_BRANCH = "main";

/** Settings and CODEOWNERS per repository; a repository never configured reads as the defaults. */
export class RepositorySettingsRepository {
  private constructor(private readonly repositories: Collection<RepositoryDocument>) {}

  static open(store: Store): RepositorySettingsRepository {
    return new RepositorySettingsRepository(store.collection<RepositoryDocument>("repositories"));
  }

  async get(org: string, repo: RepositoryRef): Promise<RepositoryDocument> {
    const repoKey = repositorySpelling(repo);
    return (await this.repositories.findOne({ _id: idOf(org, repoKey) })) ?? defaults(org, repo, repoKey);
  }

  async save(doc: RepositoryDocument): Promise<void> {
    await this.repositories.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }
}

function idOf(org: string, repoKey: string): string {
  return `${org}\n${repoKey}`;
}

function defaults(org: string, repo: RepositoryRef, repoKey: string): RepositoryDocument {
  return {
    _id: idOf(org, repoKey),
    org,
    repoKey,
    repo,
    ...DEFAULT_QUARANTINE_SETTINGS,
    defaultBranch: DEFAULT_BRANCH,
    status: { ...DEFAULT_STATUS_SETTINGS },
    updatedAt: 0,
  };
}
