import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { MetricsServer } from "@mainline/proto/metrics";
import type { MetricsState } from "../app/metrics-state.js";
import { buildExposition } from "../domain/exposition-model.js";
import type { MetricsScope } from "../domain/queue-identity.js";
import { renderPrometheusText } from "../exposition/prometheus-text.js";

/** The Metrics gRPC service: `org` is the caller's organisation (the gateway takes it from the API token). */
export function metricsApi(deps: {
  state: MetricsState;
  clock: () => number;
}): AsyncImplementation<MetricsServer> {
  return {
    async getMergeQueueMetrics(request) {
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
      const families = buildExposition(deps.state.view(), scope, deps.clock());
      return { text: await renderPrometheusText(families) };
    },
  };
}
