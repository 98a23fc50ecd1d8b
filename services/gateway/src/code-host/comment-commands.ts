import { DEFAULT_PRIORITY_NAME } from "@mainline/contract";
import type { QueueCoordinatorClient } from "@mainline/proto/queue";
import type { RepoRef } from "@mainline/proto/common";
import { HostPullRequestState } from "@mainline/proto/queue";
import { callUnary, RemoteCallError } from "@mainline/kit/grpc/index";
import { parseCommentCommand, type CommentCommand } from "../domain/comment-command.js";
import type { CommentCommandResponse, IssueCommentEvent } from "@mainline/contract";
import { priorityOf } from "../upstream/coordinator-priority.js";

type Actionable = Extract<CommentCommand, { kind: "merge" | "cancel" }>;

/**
 * The comment authors whose `/svc` commands are acted on: the repository's owner, members of its organisation
 * and its collaborators (GitHub's `comment.author_association`). Anyone else who can comment (on a public
 * repository: anyone) is refused, so a stranger cannot queue or cancel a PR.
 */
export const COMMAND_AUTHOR_ASSOCIATIONS = ["OWNER", "MEMBER", "COLLABORATOR"] as const;

export interface CommentCommandOptions {
  /** The code host's delivery id: a redelivered comment then answers as the first delivery did. */
  idempotencyKey?: string;
  /**
   * A comment without `author_association` is refused when true (GitHub App deliveries: GitHub always sends
   * it); when false it is accepted, the relay that holds the API token vouching for the author.
   */
  requireAuthorAssociation?: boolean;
}

/**
 * Acts on a `/svc` command in a pull-request comment for the organisation `org`. Everything the commenter got
 * wrong, or that the queue refuses, becomes a reply (HTTP 200): the delivery itself succeeded, and a failed
 * delivery would only make the code host redeliver a comment that can never succeed. Only failures of our own
 * (a service unavailable) propagate, so the code host retries those.
 */
export async function runCommentCommand(
  queue: QueueCoordinatorClient,
  org: string,
  event: IssueCommentEvent,
  options: CommentCommandOptions = {},
): Promise<CommentCommandResponse> {
  const { idempotencyKey } = options;
  // Editing or deleting a comment must not merge or cancel again.
  if (event.action !== "created") return ignored(`comment ${event.action}: only new comments carry commands`);
  if (!event.issue.pull_request) return ignored("the comment is on an issue, not on a pull request");
  const command = parseCommentCommand(event.comment.body ?? "");
  if (command.kind === "none") return ignored("the comment holds no /svc command");
  const refusal = authorRefusal(event, options.requireAuthorAssociation === true);
  if (refusal !== undefined)
    return {
      outcome: "refused",
      ...(command.kind === "invalid" ? {} : { command: command.kind }),
      reply: refusal,
    };
  if (command.kind === "invalid") return { outcome: "refused", reply: command.reply };
  try {
    return await apply(queue, org, event, command, idempotencyKey);
  } catch (error) {
    const reply = refusalOf(error);
    if (reply === undefined) throw error;
    return { outcome: "refused", command: command.kind, reply };
  }
}

async function apply(
  queue: QueueCoordinatorClient,
  org: string,
  event: IssueCommentEvent,
  command: Actionable,
  idempotencyKey: string | undefined,
): Promise<CommentCommandResponse> {
  const repo: RepoRef = {
    host: new URL(event.repository.html_url).host,
    owner: event.repository.owner.login,
    name: event.repository.name,
  };
  const number = event.issue.number;
  const refused = (reply: string): CommentCommandResponse => ({
    outcome: "refused",
    command: command.kind,
    reply,
  });
  // The comment does not say which branch the PR targets; the pull_request events recorded before do.
  const facts = await callUnary(queue.getPullRequestFacts.bind(queue), { org, repo, number }).catch(
    (error: unknown) => {
      if (error instanceof RemoteCallError && error.code === "NOT_FOUND") return undefined;
      throw error;
    },
  );
  if (!facts)
    return refused(
      `Mainline has not received a pull_request event for #${number} yet, so it does not know the branch it targets. ` +
        "Try again once the code host has delivered one.",
    );
  // A stacked PR's base is the head branch of the PR under it: the stack is queued where its bottom PR targets.
  const branch = facts.stackTargetBranch ?? facts.baseBranch;
  const ref = { org, repo, targetBranch: branch };
  const { queue: settings } = await callUnary(queue.getQueue.bind(queue), { queue: ref });
  if (settings && !settings.commandsEnabled)
    return refused(`Comment commands are turned off for the merge queue of \`${branch}\`.`);
  const requestedBy = `code-host:${event.comment.user.login}`;
  const key = idempotencyKey !== undefined ? { idempotencyKey } : {};

  if (command.kind === "cancel") {
    await callUnary(queue.cancelPullRequest.bind(queue), {
      queue: ref,
      prNumber: number,
      requestedBy,
      ...key,
    });
    return {
      outcome: "applied",
      command: "cancel",
      reply: `#${number} was removed from the merge queue of \`${branch}\`.`,
    };
  }
  if (facts.state === HostPullRequestState.CLOSED)
    return refused(`#${number} is closed; only open pull requests can join the merge queue.`);
  const priority = priorityOf(command.priority);
  const { pullRequest } = await callUnary(queue.submitPullRequest.bind(queue), {
    queue: ref,
    prNumber: number,
    noBatch: command.noBatch,
    requestedBy,
    ...key,
    ...(priority ? { priority } : {}),
  });
  const details = [
    `priority ${pullRequest?.priorityName ?? DEFAULT_PRIORITY_NAME}`,
    ...(command.noBatch ? ["tested on its own, not in a batch"] : []),
  ];
  return {
    outcome: "applied",
    command: "merge",
    reply: `#${number} joined the merge queue of \`${branch}\` (${details.join("; ")}).`,
  };
}

/** Why the comment's author may not run commands, or undefined when they may. */
function authorRefusal(event: IssueCommentEvent, required: boolean): string | undefined {
  const association = event.comment.author_association?.toUpperCase();
  if (association === undefined && !required) return undefined;
  if (association !== undefined && (COMMAND_AUTHOR_ASSOCIATIONS as readonly string[]).includes(association))
    return undefined;
  return (
    `@${event.comment.user.login}, only the repository's owners, members of its organisation and its ` +
    `collaborators can run \`/svc\` commands (your association with the repository is ` +
    `${association ?? "unknown"}). Ask a maintainer to run it.`
  );
}

/** The queue's refusals, in words for the commenter; undefined for failures that are ours to retry. */
function refusalOf(error: unknown): string | undefined {
  if (!(error instanceof RemoteCallError)) return undefined;
  switch (error.code) {
    case "NOT_FOUND":
    case "ALREADY_EXISTS":
    case "FAILED_PRECONDITION":
    case "INVALID_ARGUMENT":
      return `The merge queue refused: ${sentence(error.message)}`;
    default:
      return undefined;
  }
}

function sentence(message: string): string {
  const text = message.trim();
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function ignored(reason: string): CommentCommandResponse {
  return { outcome: "ignored", reason };
}
