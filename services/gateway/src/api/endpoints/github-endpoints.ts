import { z } from "zod";
import type { Context } from "koa";
import { InvalidArgumentError, NotFoundError, PermissionDeniedError } from "@mainline/kit/errors/index";
import { callUnary } from "@mainline/kit/grpc/index";
import type { Logger } from "@mainline/kit/logging/index";
import { GitHubRepositorySelection, type GitHubInstallation } from "@mainline/proto/queue";
import { endpoint, type Endpoint } from "../endpoint.js";
import { gitHubWebhookResponse } from "../../github/github-webhook-payloads.js";
import { boundedText, LIMITS } from "../schemas/limits.js";
import type { Upstreams } from "../../upstream/upstreams.js";
import type { GitHubDeliveries } from "../../github/github-deliveries.js";
import { checkWebhookSignature, SIGNATURE_HEADER } from "../../auth/webhook-signature.js";
import { handleGitHubWebhook, type PullRequestReplies } from "../../github/github-webhook-handler.js";

const TAG = "GitHub App";

const DEFAULT_CALLS = 50;
const MAX_CALLS = 200;

const gitHubCallJson = z.object({
  id: z.string(),
  kind: z.string().describe('"check-run" or "comment"'),
  repository: z.string().describe("owner/name"),
  host: z.string(),
  prNumber: z.number().int(),
  state: z
    .enum(["pending", "sent", "gave_up"])
    .describe("pending: not yet taken by GitHub (retried); gave_up: refused for good, lastError says why"),
  attempts: z.number().int(),
  lastError: z.string().optional(),
  title: z.string().optional().describe('A check run\'s title now, e.g. "Position 2 of 5 in the queue"'),
  updatedAt: z.string(),
});

export interface GitHubAppOptions {
  /** GITHUB_WEBHOOK_SECRET; unset: the integration is off and these routes answer 404. */
  webhookSecret?: string | undefined;
  /** GITHUB_API_URL: its host names the repositories' host (github.com for api.github.com). */
  apiUrl: string;
  deliveries?: GitHubDeliveries | undefined;
  replies?: PullRequestReplies | undefined;
  logger: Logger;
}

const NOT_CONFIGURED =
  "the GitHub App is not configured on this Mainline: set GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY and GITHUB_WEBHOOK_SECRET";

/**
 * The host of the repositories an App on this API serves: api.github.com -> github.com, an Enterprise Server's
 * https://HOST/api/v3 -> HOST; anything else (a proxy, a test double) says nothing, and the host is learnt from
 * GitHub's installation events instead.
 */
export function repositoryHostOf(apiUrl: string): string | undefined {
  const url = new URL(apiUrl);
  if (url.host === "api.github.com") return "github.com";
  return /^\/api\/v3\/?$/.test(url.pathname) ? url.host : undefined;
}

const installationId = z
  .int({ error: "must be GitHub's installation id (a positive integer)" })
  .min(1, "must be GitHub's installation id (a positive integer)")
  .max(Number.MAX_SAFE_INTEGER, "must be at most 2^53 - 1");

const installationJson = z.object({
  installationId: z.number(),
  org: z.string(),
  accountLogin: z.string().describe("The GitHub account the App is installed on ('' until GitHub said)"),
  host: z.string(),
  repositorySelection: z.enum(["all", "selected", "unknown"]),
  repositories: z
    .array(z.string())
    .describe("owner/name of each covered repository when the selection is 'selected'"),
  suspended: z.boolean(),
  deleted: z.boolean(),
  connectedAt: z.string().nullable(),
  updatedAt: z.string(),
  lastEventAt: z.string().nullable(),
});

const deliveryJson = z.object({
  delivery: z.string(),
  event: z.string(),
  action: z.string(),
  repository: z.string(),
  outcome: z.enum(["applied", "ignored", "refused", "queued", "failed"]),
  reason: z.string(),
  at: z.string(),
});

function installationToJson(i: GitHubInstallation | undefined): z.infer<typeof installationJson> {
  const selection =
    i?.repositorySelection === GitHubRepositorySelection.ALL
      ? "all"
      : i?.repositorySelection === GitHubRepositorySelection.SELECTED
        ? "selected"
        : "unknown";
  return {
    installationId: i?.installationId ?? 0,
    org: i?.org ?? "",
    accountLogin: i?.accountLogin ?? "",
    host: i?.host ?? "",
    repositorySelection: selection,
    repositories: i?.repositories ?? [],
    suspended: i?.suspended ?? false,
    deleted: i?.deleted ?? false,
    connectedAt: i?.connectedAt?.toISOString() ?? null,
    updatedAt: i?.updatedAt?.toISOString() ?? new Date(0).toISOString(),
    lastEventAt: i?.lastEventAt?.toISOString() ?? null,
  };
}

/** A header GitHub always sends, bounded; a missing or malformed one is a 400 naming it. */
function header(ctx: Context, name: string, pattern: RegExp, rule: string): string {
  const value = ctx.get(name);
  if (!value)
    throw new InvalidArgumentError(name, "the header is required (GitHub sends it with every delivery)");
  if (!pattern.test(value)) throw new InvalidArgumentError(name, rule);
  return value;
}

/**
 * The GitHub App: its webhook (signed by GitHub, no API token), and the installation -> organisation mapping
 * an admin sets (`mainline github connect`) and anyone of the organisation reads (`mainline github status`).
 */
export function githubEndpoints(up: Upstreams, options: GitHubAppOptions): Endpoint[] {
  const q = up.queue;
  const secret = options.webhookSecret;
  const deliveries = options.deliveries;
  const configured = () => {
    if (!secret || !deliveries) throw new NotFoundError(NOT_CONFIGURED);
    return { secret, deliveries };
  };
  const orgOf = (principal: { org: string; admin: boolean }, named: string | undefined) => {
    if (named !== undefined && named !== principal.org && !principal.admin)
      throw new PermissionDeniedError("Only an admin token may name another organisation");
    return named ?? principal.org;
  };
  const webhooks = up.webhooks;
  return [
    endpoint({
      method: "post",
      path: "/github/webhooks",
      operationId: "receiveGitHubWebhook",
      summary:
        "The GitHub App's webhook URL. Authenticated by X-Hub-Signature-256 alone (HMAC-SHA256 of the body with " +
        "GITHUB_WEBHOOK_SECRET); X-GitHub-Event says what it is and X-GitHub-Delivery names it, so a redelivery " +
        "changes nothing twice. 404 when the App is not configured.",
      tag: TAG,
      access: "public",
      errors: [401],
      input: z.looseObject({}).meta({ description: "GitHub's webhook payload, as GitHub sends it" }),
      inputIn: "body",
      async verifyBody(rawBody, ctx) {
        await checkWebhookSignature(configured().secret, rawBody, ctx.get(SIGNATURE_HEADER), {
          missing: "GitHub signs every delivery",
          mismatch: "the App's webhook secret",
        });
        // Kept with the delivery, so a retry replays exactly what GitHub signed.
        ctx.state.githubRawBody = rawBody;
      },
      output: gitHubWebhookResponse,
      async handle(payload, { ctx }) {
        const { deliveries: store } = configured();
        const event = header(ctx, "x-github-event", /^[a-z_]{1,64}$/, "must be a GitHub event name");
        const delivery = header(
          ctx,
          "x-github-delivery",
          /^[A-Za-z0-9-]{1,128}$/,
          "must be GitHub's delivery id (letters, digits and '-', at most 128)",
        );
        const result = await handleGitHubWebhook(
          {
            queue: q,
            deliveries: store,
            logger: options.logger,
            ...(options.replies ? { replies: options.replies } : {}),
          },
          event,
          delivery,
          payload,
          ctx.state.githubRawBody as string,
        );
        options.logger.info(
          {
            request_id: ctx.state.requestId as string,
            event,
            delivery,
            outcome: result.outcome,
            reason: result.reason,
          },
          "github webhook",
        );
        return result;
      },
    }),
    endpoint({
      method: "post",
      path: "/github/installations",
      operationId: "connectGitHubInstallation",
      summary:
        "Connect a GitHub App installation to an organisation (admin): Mainline then acts on the repositories it " +
        "covers for that organisation only. 409 when another organisation has it.",
      tag: TAG,
      access: "admin",
      input: z.object({
        installationId,
        org: boundedText("the organisation's slug", LIMITS.slug).optional().describe("Default: the token's"),
        accountLogin: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/, "must be a GitHub account login")
          .optional()
          .describe(
            "The GitHub account it is installed on (learnt from GitHub's installation event otherwise)",
          ),
      }),
      inputIn: "body",
      output: z.object({ installation: installationJson }),
      async handle(input, { principal }) {
        configured();
        const host = repositoryHostOf(options.apiUrl);
        const { installation } = await callUnary(q.connectGitHubInstallation.bind(q), {
          org: orgOf(principal, input.org),
          installationId: input.installationId,
          ...(host !== undefined ? { host } : {}),
          ...(input.accountLogin ? { accountLogin: input.accountLogin } : {}),
        });
        return { installation: installationToJson(installation) };
      },
    }),
    endpoint({
      method: "post",
      path: "/github/installations/disconnect",
      operationId: "disconnectGitHubInstallation",
      summary: "Disconnect a GitHub App installation from its organisation (admin)",
      tag: TAG,
      access: "admin",
      input: z.object({
        installationId,
        org: boundedText("the organisation's slug", LIMITS.slug).optional().describe("Default: the token's"),
      }),
      inputIn: "body",
      output: z.object({}),
      async handle(input, { principal }) {
        configured();
        await callUnary(q.disconnectGitHubInstallation.bind(q), {
          org: orgOf(principal, input.org),
          installationId: input.installationId,
        });
        return {};
      },
    }),
    endpoint({
      method: "get",
      path: "/github/status",
      operationId: "getGitHubStatus",
      summary:
        "What Mainline sees of the GitHub App for the token's organisation: whether it is configured, its " +
        "installations (admins also see installations no organisation has claimed) and the latest deliveries",
      tag: TAG,
      access: "org",
      input: z.object({}),
      inputIn: "query",
      output: z.object({
        configured: z.boolean(),
        apiUrl: z.string(),
        installations: z.array(installationJson),
        unclaimedInstallations: z.array(installationJson).optional(),
        recentDeliveries: z.array(deliveryJson),
      }),
      async handle(_input, { principal }) {
        const on = Boolean(secret) && deliveries !== undefined;
        if (!on)
          return { configured: false, apiUrl: options.apiUrl, installations: [], recentDeliveries: [] };
        const { installations } = await callUnary(q.listGitHubInstallations.bind(q), {
          org: principal.org,
          unclaimedOnly: false,
        });
        const unclaimed = principal.admin
          ? (await callUnary(q.listGitHubInstallations.bind(q), { org: "", unclaimedOnly: true }))
              .installations
          : undefined;
        const recent = await deliveries.recent(principal.org);
        return {
          configured: true,
          apiUrl: options.apiUrl,
          installations: installations.map(installationToJson),
          ...(unclaimed ? { unclaimedInstallations: unclaimed.map(installationToJson) } : {}),
          recentDeliveries: recent.map((d) => ({
            delivery: d._id,
            event: d.event,
            action: d.action,
            repository: d.repository,
            outcome: d.outcome,
            reason: d.reason,
            at: d.at,
          })),
        };
      },
    }),
    endpoint({
      method: "get",
      path: "/github/calls",
      operationId: "listGitHubCalls",
      summary:
        "The token's organisation's most recent calls to GitHub (check runs and comments), most recent first: " +
        "sent, pending (with attempts and the last error) or given up (and why). At most 200 (default 50). " +
        "404 when the GitHub App is not configured; 409 when the webhooks service has no GitHub App.",
      tag: TAG,
      access: "org",
      input: z.object({
        limit: z.coerce
          .number({ error: `must be an integer from 1 to ${MAX_CALLS}` })
          .int(`must be an integer from 1 to ${MAX_CALLS}`)
          .min(1, `must be an integer from 1 to ${MAX_CALLS}`)
          .max(MAX_CALLS, `must be an integer from 1 to ${MAX_CALLS}`)
          .optional()
          .describe(`How many calls (default ${DEFAULT_CALLS}, at most ${MAX_CALLS})`),
      }),
      inputIn: "query",
      output: z.object({ calls: z.array(gitHubCallJson) }),
      async handle(input, { principal }) {
        configured();
        const { calls } = await callUnary(webhooks.listGitHubCalls.bind(webhooks), {
          org: principal.org,
          limit: input.limit ?? DEFAULT_CALLS,
        });
        return {
          calls: calls.map((c) => ({
            id: c.id,
            kind: c.kind,
            repository: c.repo ? `${c.repo.owner}/${c.repo.name}` : "",
            host: c.repo?.host ?? "",
            prNumber: c.prNumber,
            state: c.state === "sent" || c.state === "gave_up" ? c.state : "pending",
            attempts: c.attempts,
            ...(c.lastError !== undefined ? { lastError: c.lastError } : {}),
            ...(c.title !== undefined ? { title: c.title } : {}),
            updatedAt: (c.updatedAt ?? new Date(0)).toISOString(),
          })),
        };
      },
    }),
  ];
}
