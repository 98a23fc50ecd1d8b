import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { MetricsServer } from "@mainline/proto/metrics";
import type { MetricsState } from "../app/metrics-state.js";
import { ScrapeAnswers } from "../app/scrape-answers.js";
import { parseMetricsScope } from "./command-parser.js";

/** The Metrics gRPC service: the request parsed once (command-parser.ts), the exposition out. */
export function metricsApi(deps: {
  state: MetricsState;
  clock: () => number;
}): AsyncImplementation<MetricsServer> {
  // Read from the shared store on every scrape: every replica answers with the same totals (scrape-answers.ts).
  const answers = new ScrapeAnswers(deps.state);
  return {
    async getMergeQueueMetrics(request) {
      const scope = parseMetricsScope(request);
      return { text: await answers.text(scope, deps.clock()) };
    },
  };
}
