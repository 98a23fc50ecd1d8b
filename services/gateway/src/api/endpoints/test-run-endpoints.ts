import { z } from "zod";
import { callUnary } from "@mainline/kit/grpc/index";
import { endpoint, type Endpoint } from "../endpoint.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const OUTPUT_CONTENT_TYPE = "text/plain; charset=utf-8";

const testRunOutputRequest = z.object({
  testRunId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "expected a test run id: 1 to 128 letters, digits, '-' or '_'"),
});

export function testRunEndpoints(up: Upstreams): Endpoint[] {
  return [
    endpoint({
      method: "get",
      path: "/test-runs/{testRunId}/output",
      operationId: "getTestRunOutput",
      summary:
        "The end of a COMMAND test run's output (stdout and stderr interleaved, at most the last 1 MiB); 404 for a run of another organization",
      tag: "Merge queue",
      access: "org",
      input: testRunOutputRequest,
      inputIn: "path",
      output: { text: OUTPUT_CONTENT_TYPE },
      async handle(input, { principal }) {
        const response = await callUnary(up.queue.getTestRunOutput.bind(up.queue), {
          org: principal.org,
          testRunId: input.testRunId,
        });
        return response.output;
      },
    }),
  ];
}
