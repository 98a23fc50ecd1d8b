import type { z } from "zod";
import { isRetryable, retryDelayMs } from "@mainline/kit/errors/index";
import { callUnary, RemoteCallError } from "@mainline/kit/grpc/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { RepoRef } from "@mainline/proto/common";
import {
  CommitStatusOutcome,
  CommitStatusState,
  type GitHubInstallation,
  type QueueCoordinatorClient,
} from "@mainline/proto/queue";
import { issueCommentEvent, pullRequestEvent } from "@mainline/contract";
import {
  checkRunEvent,
  checkSuiteEvent,
  installationEnvelope,
  pushEvent,
  statusEvent,
  workflowRunEvent,
  type GitHubWebhookResponse,
} from "./github-webhook-payloads.js";
import { parseInput } from "../http/validation.js";
import { runCommentCommand } from "../code-host/comment-commands.js";
import { recordPullRequestEvent } from "../code-host/pull-request-facts.js";
import {
  ACTIONS_APP,
  branchOfRef,
  checkSuiteContext,
  commitStatusState,
  conclusionState,
  type CheckState,
} from "../domain/github-check-state.js";
import { MAX_KEPT_BODY_BYTES, type GitHubDeliveries } from "./github-deliveries.js";
import { recordInstallation } from "./github-installation-events.js";

/** Posts a reply on a pull request, durably and once per idempotency key (the webhooks service's outbox). */
export interface PullRequestReplies {
  post(reply: {
    org: string;
    repo: RepoRef;
    prNumber: number;
    body: string;
    idempotencyKey: string;
  }): Promise<void>;
}

export interface GitHubWebhookDeps {
  queue: QueueCoordinatorClient;
  deliveries: GitHubDeliveries;
  /** Unset: replies to comment commands are in the response only (and logged). */
  replies?: PullRequestReplies;
  logger: Logger;
}

type Outcome = Omit<GitHubWebhookResponse, "event" | "delivery">;

interface Context {
  deps: GitHubWebhookDeps;
  delivery: string;
  org: string;
  installation: GitHubInstallation;
}

const ignored = (reason: string): Outcome => ({ outcome: "ignored", reason });

/**
 * The events Mainline acts on, as the App subscribes to them (deploy/github/app-manifest.json). GitHub sends
 * `installation` and `installation_repositories` to every App without a subscription.
 */
export const SUBSCRIBED_EVENTS = [
  "pull_request",
  "issue_comment",
  "check_suite",
  "check_run",
  "status",
  "workflow_run",
  "push",
] as const;

function repoOf(
  repository: { name: string; owner: { login?: string | undefined }; html_url: string },
  fullName?: string,
): RepoRef {
  return {
    host: new URL(repository.html_url).host,
    owner: repository.owner.login ?? fullName?.split("/")[0] ?? "",
    name: repository.name,
  };
}

/**
 * One signed GitHub App webhook: which organisation it is for (the installation's mapping), what it means for
 * the queues, and the record that it was handled. The delivery is kept (with its body) before it is handled and
 * recorded last, every step idempotent by the delivery id: a delivery that meets an unavailable service is
 * answered `queued` and retried by the gateway itself (GitHub does not retry), one the gateway died on is picked
 * up by the retry loop or completed by GitHub's redelivery, and one handled to the end changes nothing again.
 */
export async function handleGitHubWebhook(
  deps: GitHubWebhookDeps,
  event: string,
  delivery: string,
  payload: unknown,
  /** The body as GitHub signed it, kept for retries; absent when the retry loop hands a kept delivery back. */
  rawBody?: string,
): Promise<GitHubWebhookResponse> {
  const answer = (o: Outcome): GitHubWebhookResponse => ({ event, delivery, ...o });
  const seen = await deps.deliveries.get(delivery);
  if (seen && seen.outcome !== "queued")
    return answer({
      outcome: "duplicate",
      reason: `delivery ${delivery} was handled at ${seen.at} (${seen.outcome}); nothing changes twice`,
    });
  if (event === "ping") return answer(ignored("ping: GitHub reaches Mainline's webhook"));
  const envelope = installationEnvelope.safeParse(payload);
  if (!envelope.success)
    return answer(
      ignored("the payload names no installation: only the GitHub App's own webhooks are taken here"),
    );
  const installationId = envelope.data.installation.id;
  let kept = seen !== null;
  if (!kept && rawBody !== undefined && Buffer.byteLength(rawBody) <= MAX_KEPT_BODY_BYTES) {
    await deps.deliveries.keep({ _id: delivery, event, payload: rawBody, installationId });
    kept = true;
  }
  try {
    return await handleOnce(deps, event, delivery, payload, installationId);
  } catch (error) {
    if (!kept) throw error;
    const reason = error instanceof Error ? error.message.slice(0, 500) : String(error);
    const attempts = (seen?.attempts ?? 0) + 1;
    if (isRetryable(error) && attempts < MAX_ATTEMPTS) {
      await deps.deliveries.retryLater(delivery, reason, retryDelayMs(error, backoffMs(attempts)));
      return answer({ outcome: "queued", reason: `${reason}; Mainline tries again by itself` });
    }
    // It can never succeed (or has failed for over a day): recorded, so a redelivery does not try again.
    await deps.deliveries.done({
      _id: delivery,
      event,
      action: actionOf(payload),
      org: "",
      installationId,
      repository: "",
      outcome: isRetryable(error) ? "failed" : "refused",
      reason,
    });
    throw error;
  }
}

/** Retries of a kept delivery: 1 s, 2 s, 4 s ... at most 10 minutes apart, about a day and a half in all. */
const MAX_ATTEMPTS = 200;
function backoffMs(attempts: number): number {
  return Math.min(1000 * 2 ** Math.max(attempts - 1, 0), 600_000);
}

function actionOf(payload: unknown): string {
  const action = (payload as { action?: unknown }).action;
  return typeof action === "string" ? action.slice(0, 64) : "";
}

async function handleOnce(
  deps: GitHubWebhookDeps,
  event: string,
  delivery: string,
  payload: unknown,
  installationId: number,
): Promise<GitHubWebhookResponse> {
  const answer = (o: Outcome): GitHubWebhookResponse => ({ event, delivery, ...o });
  const record = async (org: string, o: Outcome, repository = "") => {
    await deps.deliveries.done({
      _id: delivery,
      event,
      action: actionOf(payload),
      org,
      installationId,
      repository,
      outcome: o.outcome === "duplicate" ? "ignored" : o.outcome,
      reason: o.reason ?? "",
      ...(o.reply !== undefined ? { reply: o.reply } : {}),
    });
    return answer(o);
  };

  if (event === "installation" || event === "installation_repositories") {
    const { org, outcome } = await recordInstallation(deps.queue, event, delivery, payload);
    return record(org, outcome);
  }

  const installation = await callUnary(deps.queue.getGitHubInstallation.bind(deps.queue), { installationId })
    .then((r) => r.installation)
    .catch((error: unknown) => {
      if (error instanceof RemoteCallError && error.code === "NOT_FOUND") return undefined;
      throw error;
    });
  if (!installation?.org)
    return record(
      "",
      ignored(
        `GitHub installation ${installationId} is not connected to a Mainline organisation; ` +
          `an admin connects it with \`mainline github connect ${installationId}\``,
      ),
    );
  if (installation.suspended || installation.deleted)
    return record(
      installation.org,
      ignored(`GitHub installation ${installationId} is suspended or uninstalled`),
    );
  const ctx: Context = { deps, delivery, org: installation.org, installation };
  const repository = (payload as { repository?: { full_name?: unknown } }).repository?.full_name;
  const outcome = await dispatch(ctx, event, payload);
  return record(installation.org, outcome, typeof repository === "string" ? repository.slice(0, 511) : "");
}

async function dispatch(ctx: Context, event: string, payload: unknown): Promise<Outcome> {
  switch (event) {
    case "pull_request": {
      const input = parse(pullRequestEvent, payload);
      const refusal = foreign(ctx, repoOf(input.repository));
      if (refusal) return refusal;
      const result = await recordPullRequestEvent(ctx.deps.queue, ctx.org, input, ctx.delivery);
      return result.outcome === "recorded" ? { outcome: "applied" } : ignored(result.reason ?? "");
    }
    case "issue_comment":
      return comment(ctx, payload);
    case "check_suite": {
      const input = parse(checkSuiteEvent, payload);
      const s = input.check_suite;
      const repo = repoOf(input.repository);
      return commitStatus(ctx, repo, {
        sha: s.head_sha,
        branch: s.head_branch ?? undefined,
        context: checkSuiteContext(s.app?.name ?? "check suite", s.id),
        state: conclusionState(s.status, s.conclusion),
        detailsUrl: `${input.repository.html_url}/commit/${s.head_sha}/checks`,
        suite: true,
        description: s.conclusion ? `conclusion: ${s.conclusion}` : undefined,
      });
    }
    case "check_run": {
      const input = parse(checkRunEvent, payload);
      const r = input.check_run;
      return commitStatus(ctx, repoOf(input.repository), {
        sha: r.head_sha,
        branch: r.check_suite?.head_branch ?? undefined,
        context: r.name,
        state: conclusionState(r.status, r.conclusion),
        detailsUrl: r.html_url ?? r.details_url ?? undefined,
        suite: false,
        description: r.output?.title ?? (r.conclusion ? `conclusion: ${r.conclusion}` : undefined),
      });
    }
    case "status": {
      const input = parse(statusEvent, payload);
      return commitStatus(ctx, repoOf(input.repository), {
        sha: input.sha,
        branch: input.branches[0]?.name,
        context: input.context,
        state: commitStatusState(input.state),
        detailsUrl: input.target_url ?? undefined,
        suite: false,
        description: input.description ?? undefined,
      });
    }
    case "workflow_run": {
      const input = parse(workflowRunEvent, payload);
      const w = input.workflow_run;
      const state = conclusionState(w.status, w.conclusion);
      if (state === "PENDING" && typeof w.check_suite_id === "number") {
        // GitHub sends check_suite events only when a suite completed: the workflow's start is what tells that
        // its suite is still running, so a required "GitHub Actions" waits for it too.
        const suite = await commitStatus(ctx, repoOf(input.repository), {
          sha: w.head_sha,
          branch: w.head_branch ?? undefined,
          context: checkSuiteContext(ACTIONS_APP, w.check_suite_id),
          state,
          detailsUrl: w.html_url ?? undefined,
          suite: true,
          description: `${w.name ?? input.workflow?.name ?? "workflow"}: ${w.status ?? "pending"}`,
        });
        if (suite.outcome !== "applied") return suite;
      }
      return commitStatus(ctx, repoOf(input.repository), {
        sha: w.head_sha,
        branch: w.head_branch ?? undefined,
        context: w.name ?? input.workflow?.name ?? "workflow",
        state,
        detailsUrl: w.html_url ?? undefined,
        suite: true,
        description: w.conclusion ? `conclusion: ${w.conclusion}` : undefined,
      });
    }
    case "push": {
      const input = parse(pushEvent, payload);
      const branch = branchOfRef(input.ref);
      if (branch === undefined) return ignored(`${input.ref} is not a branch`);
      const repo = repoOf(input.repository, input.repository.full_name);
      const refusal = foreign(ctx, repo);
      if (refusal) return refusal;
      const result = await callUnary(ctx.deps.queue.recordBranchPush.bind(ctx.deps.queue), {
        org: ctx.org,
        repo,
        branch,
        beforeSha: input.before.toLowerCase(),
        afterSha: input.after.toLowerCase(),
        deliveryId: ctx.delivery,
        deleted: input.deleted,
        forced: input.forced,
      });
      return result.targetMoved ? { outcome: "applied", reason: result.reason } : ignored(result.reason);
    }
    default:
      return ignored(`Mainline does not act on ${event.slice(0, 64)} events`);
  }
}

/**
 * Mainline acts on a repository only through the installation that covers it: every repository an
 * installation covers belongs to the account it is installed on.
 */
function foreign(ctx: Context, repo: RepoRef): Outcome | undefined {
  const { accountLogin, installationId, host } = ctx.installation;
  if (host && host.toLowerCase() !== repo.host.toLowerCase())
    return ignored(`${repo.owner}/${repo.name} is not on ${host}, where installation ${installationId} is`);
  if (accountLogin && accountLogin.toLowerCase() !== repo.owner.toLowerCase())
    return ignored(
      `${repo.owner}/${repo.name} does not belong to ${accountLogin}, the account of installation ${installationId}`,
    );
  return undefined;
}

async function comment(ctx: Context, payload: unknown): Promise<Outcome> {
  const input = parse(issueCommentEvent, payload);
  const repo = repoOf(input.repository);
  const refusal = foreign(ctx, repo);
  if (refusal) return refusal;
  const result = await runCommentCommand(ctx.deps.queue, ctx.org, input, {
    idempotencyKey: ctx.delivery,
    requireAuthorAssociation: true,
  });
  if (result.outcome === "ignored") return ignored(result.reason ?? "");
  const reply = result.reply ?? "";
  if (reply && ctx.deps.replies) {
    // Queued durably before GitHub hears back: once this returns, the comment is posted even if we die now.
    await ctx.deps.replies.post({
      org: ctx.org,
      repo,
      prNumber: input.issue.number,
      body: reply,
      idempotencyKey: ctx.delivery,
    });
  } else if (reply) {
    ctx.deps.logger.info(
      { org: ctx.org, pr: input.issue.number, reply },
      "comment command reply (no poster)",
    );
  }
  return { outcome: result.outcome, reply, ...(result.command ? { reason: `/svc ${result.command}` } : {}) };
}

async function commitStatus(
  ctx: Context,
  repo: RepoRef,
  s: {
    sha: string;
    branch: string | undefined;
    context: string;
    state: CheckState;
    detailsUrl: string | undefined;
    suite: boolean;
    description: string | undefined;
  },
): Promise<Outcome> {
  const refusal = foreign(ctx, repo);
  if (refusal) return refusal;
  const result = await callUnary(ctx.deps.queue.recordCommitStatus.bind(ctx.deps.queue), {
    org: ctx.org,
    repo,
    sha: s.sha.toLowerCase(),
    context: s.context.trim() || "ci",
    // The same word on the wire (string enums).
    state: CommitStatusState[s.state],
    suite: s.suite,
    deliveryId: ctx.delivery,
    ...(s.branch ? { branch: s.branch } : {}),
    ...(s.detailsUrl ? { detailsUrl: s.detailsUrl } : {}),
    ...(s.description ? { description: s.description.slice(0, 1024) } : {}),
  });
  if (result.outcome === CommitStatusOutcome.IGNORED) return ignored(result.reason);
  const verdict =
    result.outcome === CommitStatusOutcome.PASSED
      ? "passed"
      : result.outcome === CommitStatusOutcome.FAILED
        ? "failed"
        : "recorded";
  return { outcome: "applied", reason: `test run ${result.testRunId} ${verdict}: ${result.reason}` };
}

function parse<T>(schema: z.ZodType<T>, payload: unknown): T {
  return parseInput(schema, payload);
}
