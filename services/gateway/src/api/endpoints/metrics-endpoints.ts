import { callUnary } from "@mainline/kit/grpc/index";
import { endpoint, type Endpoint } from "../endpoint.js";
import { metricsQuery } from "../schemas/merge-queue.js";
import type { Upstreams } from "../../upstream/upstreams.js";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export function metricsEndpoints(up: Upstreams): Endpoint[] {
  return [
    endpoint({
      method: "get",
      path: "/getMergeQueueMetrics",
      operationId: "getMergeQueueMetrics",
      summary:
        "Merge queue metrics in Prometheus text format (one repository, or every repository of the organization)",
      tag: "Merge queue",
      access: "org",
      input: metricsQuery,
      inputIn: "query",
      output: { text: PROMETHEUS_CONTENT_TYPE },
      async handle(input, { principal }) {
        const [owner, ...rest] = (input.repo ?? "").split("/");
        const response = await callUnary(up.metrics.getMergeQueueMetrics.bind(up.metrics), {
          org: principal.org,
          ...(input.repo && input.repoHost
            ? { repo: { host: input.repoHost, owner: owner ?? "", name: rest.join("/") } }
            : {}),
        });
        return response.text;
      },
    }),
  ];
}
