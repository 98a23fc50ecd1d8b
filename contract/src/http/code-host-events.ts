import { z } from "zod";
import { LIMITS } from "../limits.js";
import { boundedText, branchName, prNumber } from "./request-fields.js";

const login = boundedText("a code-host user name", LIMITS.owner);

/** The repository as code-host webhook payloads describe it (GitHub's shape). */
const repository = z.object({
  name: boundedText("repository name", LIMITS.name),
  owner: z.object({ login: boundedText("repository owner", LIMITS.owner) }),
  html_url: z.url({ error: "must be the repository's URL" }).max(2048, "must be at most 2048 characters"),
});

/**
 * The parts of GitHub's `pull_request` webhook payload Mainline reads. Repositories on a plain git server (and
 * the demo) post the same shape through `mainline pr event`, so there is one path for pull-request facts.
 * Any action is accepted (a code host sends labeled, assigned, ... to the same hook); those that say nothing
 * about branches or state are acknowledged and ignored.
 */
export const pullRequestEvent = z.object({
  action: boundedText("the event's action", 64),
  number: prNumber,
  pull_request: z.object({
    number: prNumber.optional(),
    title: z.string().max(1024, "must be at most 1024 characters"),
    state: z.enum(["open", "closed"], { error: "must be open or closed" }),
    merged: z.boolean().nullish(),
    user: z.object({ login: z.string().max(LIMITS.owner, `must be at most ${LIMITS.owner} characters`) }),
    head: z.object({
      ref: branchName("the PR's head branch"),
      sha: z.string().regex(/^[0-9a-fA-F]{7,64}$/, "must be a commit sha (hex)"),
    }),
    base: z.object({ ref: branchName("the branch the PR targets") }),
  }),
  repository,
});
export type PullRequestEvent = z.infer<typeof pullRequestEvent>;

export const pullRequestEventResponse = z.object({
  outcome: z.enum(["recorded", "ignored"]),
  reason: z.string().optional().describe("Why the event was ignored"),
});

/**
 * The parts of GitHub's `issue_comment` payload that comment commands need. Pull-request comments arrive as
 * comments on the PR's issue; `issue.pull_request` is present only then.
 */
export const issueCommentEvent = z.object({
  action: boundedText("the event's action", 64),
  issue: z.object({
    number: prNumber,
    pull_request: z.looseObject({}).nullish(),
  }),
  comment: z.object({
    body: z.string().max(65_536, "must be at most 65536 characters").nullable(),
    user: z.object({ login }),
    /** How the author is related to the repository (GitHub: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...). */
    author_association: boundedText("the comment author's association", 64).optional(),
  }),
  repository,
});
export type IssueCommentEvent = z.infer<typeof issueCommentEvent>;

export const commentCommandResponse = z.object({
  outcome: z
    .enum(["ignored", "applied", "refused"])
    .describe("ignored: no command for us; applied: the queue changed; refused: the reply says why not"),
  reason: z.string().optional().describe("Why the comment was ignored"),
  command: z.enum(["merge", "cancel"]).optional(),
  reply: z.string().optional().describe("What the bot answers in the pull request (Markdown)"),
});
export type CommentCommandResponse = z.infer<typeof commentCommandResponse>;
