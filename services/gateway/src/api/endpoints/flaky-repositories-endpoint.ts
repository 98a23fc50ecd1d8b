import { callUnary } from "@mainline/kit/grpc/index";
import { endpoint, type Endpoint } from "../endpoint.js";
import { emptyObject } from "../schemas/common.js";
import { listRepositoriesResponse } from "../schemas/flaky-tests.js";
import type { Upstreams } from "../../upstream/upstreams.js";

/** The organisation's repositories with test results: what the web page offers to choose from. Ours. */
export function flakyRepositoriesEndpoint(up: Upstreams): Endpoint {
  return endpoint({
    method: "post",
    path: "/flaky-tests/list-repositories",
    operationId: "listFlakyTestRepositories",
    summary: "The organisation's repositories that have test results, sorted by host, owner and name",
    tag: "Flaky tests",
    access: "org",
    input: emptyObject,
    inputIn: "body",
    output: listRepositoriesResponse,
    async handle(_input, { principal }) {
      const f = up.flaky;
      const { repositories } = await callUnary(f.listRepositories.bind(f), { org: principal.org });
      return { repositories: repositories.map(({ host, owner, name }) => ({ host, owner, name })) };
    },
  });
}
