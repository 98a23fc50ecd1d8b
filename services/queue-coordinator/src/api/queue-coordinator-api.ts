import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { QueueCoordinatorServer } from "@mainline/proto/queue";
import type { ApiDeps } from "./api-deps.js";
import { queueCommands } from "./queue-commands.js";
import { queueQueries } from "./queue-queries.js";

export type { ApiDeps } from "./api-deps.js";

/** The QueueCoordinator gRPC service: commands (queue-commands.ts) and queries (queue-queries.ts). */
export function queueCoordinatorApi(deps: ApiDeps): AsyncImplementation<QueueCoordinatorServer> {
  return { ...queueQueries(deps), ...queueCommands(deps) };
}
