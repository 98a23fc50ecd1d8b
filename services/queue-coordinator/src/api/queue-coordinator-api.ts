import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { QueueCoordinatorServer } from "@mainline/proto/queue";
import type { ApiDeps } from "./api-deps.js";
import { githubFactsApi } from "./github-facts-api.js";
import { githubInstallationsApi } from "./github-installations-api.js";
import { queueCommands } from "./queue-commands.js";
import { queueQueries } from "./queue-queries.js";

export type { ApiDeps } from "./api-deps.js";

/**
 * The QueueCoordinator gRPC service: commands (queue-commands.ts) and queries (queue-queries.ts), and the
 * GitHub App's installations and code-host facts.
 */
export function queueCoordinatorApi(deps: ApiDeps): AsyncImplementation<QueueCoordinatorServer> {
  return {
    ...queueQueries(deps),
    ...queueCommands(deps),
    ...githubInstallationsApi(deps),
    ...githubFactsApi(deps),
  };
}
