import { z } from "zod";
import { DEFAULT_PULL_REF_PATTERN } from "@mainline/contract";
import type { Context } from "koa";
import { callUnary } from "@mainline/kit/grpc/index";
import { RunnerKind } from "@mainline/proto/queue";
import type { Logger } from "@mainline/kit/logging/index";
import { endpoint, type Endpoint } from "../endpoint.js";
import {
  commentCommandResponse,
  issueCommentEvent,
  pullRefPatternProblem,
  pullRequestEvent,
  pullRequestEventResponse,
} from "@mainline/contract";
import { repoSchema } from "../schemas/common.js";
import { MAX_REMOTE_URL_LENGTH, remoteUrlProblem } from "../../domain/remote-url.js";
import type { Upstreams } from "../../upstream/upstreams.js";
import { runCommentCommand } from "../../code-host/comment-commands.js";
import { recordPullRequestEvent } from "../../code-host/pull-request-facts.js";
import { checkWebhookSignature, SIGNATURE_HEADER } from "../../auth/webhook-signature.js";

const connection = z.object({
  repo: repoSchema,
  remoteUrl: z
    .string()
    .max(MAX_REMOTE_URL_LENGTH, `must be at most ${MAX_REMOTE_URL_LENGTH} characters`)
    .superRefine(refuse(remoteUrlProblem))
    .meta({
      description:
        "https, http, ssh, git or file URL, user@host:path, or a local path; at most 2048 characters",
    }),
  // The name of a Kubernetes Secret mounted into the batch-runner (never the secret itself); "" for none.
  credentialsSecretName: z
    .string()
    .regex(
      /^$|^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/,
      "must be a Kubernetes Secret name: lowercase letters, digits, '-' and '.', starting and ending alphanumeric",
    )
    .default(""),
  pullRefPattern: z
    .string()
    // A regex rather than .includes(): it is written into the OpenAPI document as a standard `pattern`.
    .regex(/\{number\}/, { error: 'must contain "{number}"' })
    .max(255, "must be at most 255 bytes (UTF-8)")
    .superRefine(refuse(pullRefPatternProblem))
    .default(DEFAULT_PULL_REF_PATTERN),
  runner: z.object({
    kind: z.preprocess(
      (v) => (typeof v === "string" ? v.toUpperCase() : v),
      z.enum(["COMMAND", "EXTERNAL"], { error: "must be COMMAND or EXTERNAL" }),
    ),
    command: z.string().max(65_536, "must be at most 65536 characters").default(""),
    junitGlobs: z
      .array(
        z
          .string()
          .min(1, "must not hold empty globs")
          .max(1024, "must hold globs of at most 1024 characters"),
      )
      .max(100, "must hold at most 100 globs")
      .default([]),
    // Variables the repository declares for its command; the queue-coordinator also refuses names of
    // Mainline's own (NATS_*, *_ADDR...) and those the runner sets (PATH, HOME, CI...).
    env: z
      .record(z.string(), z.string().max(4096, "must be at most 4096 characters"))
      .superRefine((env, ctx) => {
        const names = Object.keys(env);
        if (names.length > 64) ctx.addIssue({ code: "custom", message: "must have at most 64 variables" });
        const bad = names.find((name) => !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name));
        if (bad !== undefined)
          ctx.addIssue({
            code: "custom",
            message: `variable names must match ^[A-Za-z_][A-Za-z0-9_]{0,127}$ (got ${JSON.stringify(bad.slice(0, 140))})`,
          });
      })
      // Optional rather than defaulted: a connection without variables reads as it did before they existed.
      .optional(),
  }),
});

/** A zod refinement from a pure check that names the rule a value breaks (null: none). */
function refuse(problemOf: (value: string) => string | null) {
  return (value: string, ctx: z.core.$RefinementCtx<string>) => {
    const problem = problemOf(value);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  };
}

export interface CodeHostOptions {
  /** CODE_HOST_WEBHOOK_SECRET: when set, code-host events must be signed with it. */
  webhookSecret?: string | undefined;
  logger: Logger;
}

/** Code-host events (pull_request facts, comment commands), repository connections, and external CI reports. */
export function codeHostEndpoints(up: Upstreams, options: CodeHostOptions): Endpoint[] {
  const q = up.queue;
  // Without a secret events are accepted unsigned: the plain-git setup, where the API token is the only credential.
  const secret = options.webhookSecret;
  const verifyBody = async (rawBody: string, ctx: Context) => {
    if (secret === undefined) return;
    await checkWebhookSignature(secret, rawBody, ctx.get(SIGNATURE_HEADER), {
      missing: "this gateway requires signed code-host events",
      mismatch: "the configured secret",
    });
  };
  return [
    endpoint({
      method: "post",
      path: "/code-host/pull-request-events",
      operationId: "recordPullRequestEvent",
      summary:
        "Receive a pull_request event in GitHub's payload shape; opened, synchronize, closed, reopened and edited " +
        "are recorded, other actions ignored. Signed with X-Hub-Signature-256 when the gateway has a webhook secret.",
      tag: "Code host",
      access: "org",
      input: pullRequestEvent,
      inputIn: "body",
      verifyBody,
      output: pullRequestEventResponse,
      handle: (input, { principal }) => recordPullRequestEvent(q, principal.org, input),
    }),
    endpoint({
      method: "post",
      path: "/code-host/comment-events",
      operationId: "handleCommentCommand",
      summary:
        "Receive an issue_comment event in GitHub's payload shape and act on a /svc command in a pull-request " +
        "comment: `/svc merge` (with `--no-batch`, `--priority=<level>`) or `/svc cancel`. The reply a bot would " +
        "post is in the response. Only a comment author whose author_association is OWNER, MEMBER or COLLABORATOR " +
        "(when the payload carries it) may run commands. Signed with X-Hub-Signature-256 when the gateway has a " +
        "webhook secret.",
      tag: "Code host",
      access: "org",
      input: issueCommentEvent,
      inputIn: "body",
      verifyBody,
      output: commentCommandResponse,
      async handle(input, { principal, ctx }) {
        const result = await runCommentCommand(q, principal.org, input);
        // We cannot post to the code host from here; the log line is the record of what the bot said.
        options.logger.info(
          {
            request_id: ctx.state.requestId as string,
            org: principal.org,
            repo: `${input.repository.owner.login}/${input.repository.name}`,
            pr: input.issue.number,
            commenter: input.comment.user.login,
            ...result,
          },
          "comment command",
        );
        return result;
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
              env: input.runner.env ?? {},
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
            ...(c?.runner?.env && Object.keys(c.runner.env).length > 0 && { env: c.runner.env }),
          },
        };
      },
    }),
  ];
}
