import { z } from "zod";
import { callUnary } from "@mainline/kit/grpc/index";
import { HostPullRequestState, PullRequestAction, RunnerKind } from "@mainline/proto/queue";
import { endpoint, type Endpoint } from "../endpoint.js";
import { pullRequestEvent } from "../schemas/code-host.js";
import { repoSchema } from "../schemas/common.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const ACTIONS = {
  opened: PullRequestAction.OPENED,
  synchronize: PullRequestAction.SYNCHRONIZE,
  closed: PullRequestAction.CLOSED,
  reopened: PullRequestAction.REOPENED,
  edited: PullRequestAction.EDITED,
} as const;

const connection = z.object({
  repo: repoSchema,
  remoteUrl: z.string().min(1, "must not be empty"),
  credentialsSecretName: z.string().default(""),
  pullRefPattern: z
    .string()
    .includes("{number}", { error: 'must contain "{number}"' })
    .default("refs/pull/{number}/head"),
  runner: z.object({
    kind: z.preprocess(
      (v) => (typeof v === "string" ? v.toUpperCase() : v),
      z.enum(["COMMAND", "EXTERNAL"], { error: "must be COMMAND or EXTERNAL" }),
    ),
    command: z.string().default(""),
    junitGlobs: z.array(z.string().min(1)).default([]),
  }),
});

/** Code-host facts (pull_request events), repository connections, and external CI reports. */
export function codeHostEndpoints(up: Upstreams): Endpoint[] {
  const q = up.queue;
  return [
    endpoint({
      method: "post",
      path: "/code-host/pull-request-events",
      operationId: "recordPullRequestEvent",
      summary:
        "Receive a pull_request event in GitHub's payload shape (opened, synchronize, closed, reopened, edited)",
      tag: "Code host",
      access: "org",
      input: pullRequestEvent,
      inputIn: "body",
      output: z.object({}),
      async handle(input, { principal }) {
        const pr = input.pull_request;
        await callUnary(q.recordPullRequestFacts.bind(q), {
          org: principal.org,
          repo: {
            host: new URL(input.repository.html_url).host,
            owner: input.repository.owner.login,
            name: input.repository.name,
          },
          number: input.number,
          action: ACTIONS[input.action],
          headBranch: pr.head.ref,
          headSha: pr.head.sha.toLowerCase(),
          title: pr.title,
          author: pr.user.login,
          baseBranch: pr.base.ref,
          state: pr.state === "open" ? HostPullRequestState.OPEN : HostPullRequestState.CLOSED,
          merged: pr.merged ?? false,
        });
        return {};
      },
    }),
    endpoint({
      method: "post",
      path: "/repositories/connection",
      operationId: "setRepositoryConnection",
      summary: "Connect a repository: git remote, credentials secret name, pull ref pattern, test runner",
      tag: "Repositories",
      access: "org",
      input: connection,
      inputIn: "body",
      output: connection,
      async handle(input, { principal }) {
        await callUnary(q.setRepositoryConnection.bind(q), {
          org: principal.org,
          connection: {
            ...input,
            runner: {
              ...input.runner,
              kind: input.runner.kind === "COMMAND" ? RunnerKind.COMMAND : RunnerKind.EXTERNAL,
            },
          },
        });
        return input;
      },
    }),
    endpoint({
      method: "post",
      path: "/repositories/getConnection",
      operationId: "getRepositoryConnection",
      summary: "Get a repository's connection settings (the credentials secret by name only)",
      tag: "Repositories",
      access: "org",
      input: z.object({ repo: repoSchema }),
      inputIn: "body",
      output: connection,
      async handle(input, { principal }) {
        const { connection: c } = await callUnary(q.getRepositoryConnection.bind(q), {
          org: principal.org,
          repo: input.repo,
        });
        return {
          repo: input.repo,
          remoteUrl: c?.remoteUrl ?? "",
          credentialsSecretName: c?.credentialsSecretName ?? "",
          pullRefPattern: c?.pullRefPattern ?? "",
          runner: {
            kind: c?.runner?.kind === RunnerKind.EXTERNAL ? ("EXTERNAL" as const) : ("COMMAND" as const),
            command: c?.runner?.command ?? "",
            junitGlobs: c?.runner?.junitGlobs ?? [],
          },
        };
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
        testRunId: z.string().min(1, "must not be empty"),
        passed: z.boolean({ error: "must be a boolean" }),
        detailsUrl: z.url().optional(),
        message: z.string().max(2000).optional(),
        junit: z.array(z.string()).default([]),
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
