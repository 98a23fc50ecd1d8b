import { z } from "zod";
import { FINISHED_STATES, QUEUE_HISTORY_PAGE } from "@mainline/contract";
import { isoDateTime, repoSchema, targetBranch, upperEnum } from "./common.js";
import { intInRange } from "./limits.js";

/** Request and response of listFinishedPullRequests (ours): a queue's history, a page at a time. */

const { maxLimit, defaultLimit, maxOffset, maxSearchLength } = QUEUE_HISTORY_PAGE;

export const listFinishedPullRequestsRequest = z.strictObject({
  repo: repoSchema,
  targetBranch,
  states: z
    .array(upperEnum(FINISHED_STATES))
    .max(FINISHED_STATES.length, `must hold at most ${FINISHED_STATES.length} states`)
    .optional()
    .meta({ description: "Only PRs that ended in these states; absent or empty: all three" }),
  search: z
    .string({ error: "must be a string (a PR number, a head branch or an author)" })
    .max(maxSearchLength, `must be at most ${maxSearchLength} characters`)
    .optional()
    .meta({ description: 'A PR number ("42" or "#42"), a head branch or an author, matched exactly' }),
  limit: intInRange(1, maxLimit)
    .optional()
    .meta({ description: `PRs per page, ${defaultLimit} unless set` }),
  offset: intInRange(0, maxOffset)
    .optional()
    .meta({ description: "How many matching PRs to skip, the latest first" }),
});

export const finishedPullRequest = z.object({
  /** Queue entry id, not the PR number. */
  id: z.string(),
  state: z.enum(FINISHED_STATES),
  endedAt: isoDateTime,
  prNumber: z.int(),
  prTitle: z.string(),
  prAuthor: z.string(),
  headBranch: z.string(),
  submittedAt: isoDateTime,
  /** Why it ended, in the coordinator's vocabulary (MERGED, TESTS_FAILED, CANCELLED_BY_USER, ...). */
  reason: z.string(),
});

export const listFinishedPullRequestsResponse = z.object({
  pullRequests: z.array(finishedPullRequest),
  /** How many PRs match in all. */
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

export type FinishedPullRequest = z.infer<typeof finishedPullRequest>;
export type ListFinishedPullRequestsResponse = z.infer<typeof listFinishedPullRequestsResponse>;
