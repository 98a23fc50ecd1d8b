import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { GetMergeQueueMetricsRequest } from "@mainline/proto/metrics";
import type { MetricsScope } from "../domain/queue-identity.js";

/**
 * The metrics service's one command parser: each gRPC request becomes a typed query in the domain's words,
 * checked once here; errors name the field and the rule.
 */

/** `org` is the caller's organisation (the gateway takes it from the API token); a repo narrows the scope. */
export function parseMetricsScope(request: GetMergeQueueMetricsRequest): MetricsScope {
  if (!request.org) throw new InvalidArgumentError("org", "is required");
  const scope: MetricsScope = { org: request.org };
  if (request.repo !== undefined) {
    const { host, owner, name } = request.repo;
    for (const [field, value] of [
      ["repo.host", host],
      ["repo.owner", owner],
      ["repo.name", name],
    ] as const) {
      if (!value) throw new InvalidArgumentError(field, "must not be empty when repo is given");
    }
    scope.repo = { host, owner, name };
  }
  return scope;
}
