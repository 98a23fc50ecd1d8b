import type { Collection, Store } from "@mainline/kit/store/index";

export type RunnerKind = "COMMAND" | "EXTERNAL";

/**
 * How the batch-runner reaches a repository and runs its tests. The credentials are a secret's name,
 * never the secret itself.
 */
export interface RepositoryConnection {
  remoteUrl: string;
  credentialsSecretName: string;
  pullRefPattern: string;
  /** env: the variables the repository declares for its command (checked by assertTestCommandEnv). */
  runner: { kind: RunnerKind; command: string; junitGlobs: string[]; env?: Record<string, string> };
}

interface ConnectionDocument extends RepositoryConnection {
  _id: string;
  org: string;
  repoKey: string;
  updatedAt: string;
}

export class RepositoryConnections {
  private constructor(private readonly connections: Collection<ConnectionDocument>) {}

  static open(store: Store): RepositoryConnections {
    return new RepositoryConnections(store.collection<ConnectionDocument>("repository_connections"));
  }

  async set(org: string, repoKey: string, connection: RepositoryConnection, now: Date): Promise<void> {
    const _id = `${org}#${repoKey}`;
    await this.connections.replaceOne(
      { _id },
      { _id, org, repoKey, ...connection, updatedAt: now.toISOString() },
      { upsert: true },
    );
  }

  async get(org: string, repoKey: string): Promise<RepositoryConnection | null> {
    const doc = await this.connections.findOne({ _id: `${org}#${repoKey}` });
    if (!doc) return null;
    const { remoteUrl, credentialsSecretName, pullRefPattern, runner } = doc;
    return { remoteUrl, credentialsSecretName, pullRefPattern, runner };
  }
}
