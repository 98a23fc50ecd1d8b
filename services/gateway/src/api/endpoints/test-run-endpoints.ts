import { z } from "zod";
import { callUnary } from "@mainline/kit/grpc/index";
import { endpoint, type Endpoint } from "../endpoint.js";
import { identifier } from "../schemas/limits.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const OUTPUT_CONTENT_TYPE = "text/plain; charset=utf-8";

const testRunOutputRequest = z.object({
  testRunId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "expected a test run id: 1 to 128 letters, digits, '-' or '_'"),
});

/** A merge-queue test run: what an external CI reports of it, and the output of one the runner ran. */
export function testRunEndpoints(up: Upstreams): Endpoint[] {
  const q = up.queue;
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
    endpoint({
      method: "post",
      path: "/reportTestRun",
      operationId: "reportTestRun",
      summary:
        "Report the result of a merge-queue test run from an external CI (pass or fail, optional JUnit XML)",
      tag: "Merge queue",
      access: "org",
      input: z.object({
        testRunId: identifier("the test run's id"),
        passed: z.boolean({ error: "must be a boolean" }),
        detailsUrl: z.url().max(2048, "must be at most 2048 characters").optional(),
        message: z.string().max(2000).optional(),
        junit: z.array(z.string()).max(1000, "must hold at most 1000 JUnit XML documents").default([]),
      }),
      inputIn: "body",
      output: z.object({}),
      async handle(input, { principal }) {
        await callUnary(q.reportTestRunResult.bind(q), {
          org: principal.org,
          testRunId: input.testRunId,
          passed: input.passed,
          junitXml: input.junit,
          ...(input.detailsUrl ? { detailsUrl: input.detailsUrl } : {}),
          ...(input.message ? { message: input.message } : {}),
        });
        return {};
      },
    }),
  ];
}
