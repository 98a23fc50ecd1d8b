import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { MetricsServer } from "@mainline/proto/metrics";
import type { MetricsState } from "../app/metrics-state.js";
import { buildExposition } from "../domain/exposition-model.js";
import { renderPrometheusText } from "../exposition/prometheus-text.js";
import { parseMetricsScope } from "./command-parser.js";

/** The Metrics gRPC service: the request parsed once (command-parser.ts), the exposition out. */
export function metricsApi(deps: {
  state: MetricsState;
  clock: () => number;
}): AsyncImplementation<MetricsServer> {
  return {
    async getMergeQueueMetrics(request) {
      const scope = parseMetricsScope(request);
      // Read from the shared store on every scrape (no cache): every replica answers with the same totals.
      const now = deps.clock();
      const families = buildExposition(await deps.state.view(now), scope, now);
      return { text: await renderPrometheusText(families) };
    },
  };
}
