import { z } from "zod";
import {
  BATCHING_MODES,
  BISECTION_MODES,
  DIRECT_MERGE_MODES,
  MAX_REQUIRED_STATUSES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
  PR_STATES,
  priorityInput,
  QUEUE_STATES,
} from "@mainline/contract";
import { prNumber, repoSchema, targetBranch, upperEnum } from "./common.js";
import { boundedText, branchName, identifier, intInRange, LIMITS, RANGES } from "./limits.js";

/** Request and response shapes of the merge-queue endpoints: service-spec.md plus compat-notes.md. */

const queueKey = { repo: repoSchema, targetBranch };

export const priority = priorityInput;

export const submitPullRequestRequest = z.object({
  ...queueKey,
  pr: z.object({ number: prNumber }),
  priority: priority.optional(),
  noBatch: z.boolean({ error: "must be a boolean" }).optional(),
  includeStack: z
    .boolean({ error: "must be a boolean" })
    .optional()
    .describe(
      "A PR stacked on others (its base branch is another open PR's head branch) also queues those below it (default true); false: it waits NOT_READY for them",
    ),
});

export const setPullRequestPriorityRequest = z.object({
  ...queueKey,
  pr: z.object({ number: prNumber }),
  priority,
});

export { setPullRequestPriorityResponse } from "@mainline/contract";

export const prRequest = z.object({ ...queueKey, pr: z.object({ number: prNumber }) });

export const getSubmittedPullRequestRequest = z
  .object({
    ...queueKey,
    pr: z.object({
      number: prNumber.optional(),
      branch: branchName("the PR's head branch").optional(),
    }),
  })
  .superRefine((value, ctx) => {
    const hasNumber = value.pr.number !== undefined;
    const hasBranch = value.pr.branch !== undefined;
    if (hasNumber === hasBranch) {
      ctx.addIssue({
        code: "custom",
        path: ["pr"],
        message: hasNumber
          ? "give either pr.number or pr.branch, not both"
          : "one of pr.number or pr.branch is required",
      });
    }
  });

export const setImpactedTargetsRequest = z.object({
  ...queueKey,
  pr: z.object({
    number: prNumber,
    sha: z.string().regex(/^[0-9a-fA-F]{4,64}$/, "must be a commit sha (hex)"),
  }),
  impactedTargets: z.union(
    [
      z.literal("ALL"),
      z.array(
        z
          .string()
          .min(1, "must not contain empty target names")
          .max(LIMITS.label, `must hold target names of at most ${LIMITS.label} characters`),
      ),
    ],
    {
      error: 'must be a list of target names or the string "ALL"',
    },
  ),
});

export const testingDetailsRequest = z.object({
  ...queueKey,
  testRunId: identifier("a test run id, from getQueue"),
});

export { QUEUE_STATES };
export const MODES = QUEUE_MODES;
export { BATCHING_MODES, BISECTION_MODES, DIRECT_MERGE_MODES, MERGE_METHODS, OPTIMIZATION_MODES };

const setting = (name: keyof typeof RANGES) => {
  const [min, max] = RANGES[name];
  return intInRange(min, max, min === 0 ? "; 0 disables" : "").optional();
};
const statusName = boundedText("a required status check's name", LIMITS.label);

/** Every setting updateQueue accepts (compat-notes); all optional: an absent setting is left as it is. */
export const queueSettings = {
  mode: upperEnum(MODES).optional(),
  concurrency: setting("concurrency"),
  testingTimeoutMinutes: setting("testingTimeoutMinutes"),
  canOptimisticallyMerge: z.boolean().optional(),
  pendingFailureDepth: setting("pendingFailureDepth"),
  maxStackSize: setting("maxStackSize"),
  batch: z.boolean().optional(),
  batchingMaxWaitTimeMinutes: setting("batchingMaxWaitTimeMinutes"),
  batchingMinSize: setting("batchingMinSize"),
  batchingMode: upperEnum(BATCHING_MODES).optional(),
  bisectionConcurrency: setting("bisectionConcurrency"),
  bisectionMode: upperEnum(BISECTION_MODES).optional(),
  requiredStatuses: z
    .array(statusName)
    .max(MAX_REQUIRED_STATUSES, `must hold at most ${MAX_REQUIRED_STATUSES} status names`)
    .optional(),
  mergeMethod: upperEnum(MERGE_METHODS).optional(),
  commentsEnabled: z.boolean().optional(),
  commandsEnabled: z.boolean().optional(),
  statusCheckEnabled: z.boolean().optional(),
  directMergeMode: upperEnum(DIRECT_MERGE_MODES).optional(),
  optimizationMode: upperEnum(OPTIMIZATION_MODES).optional(),
  // Issue 26: true, false, or null to follow the repository's quarantining setting.
  ignoreQuarantinedTests: z.boolean().nullable().optional(),
  retryKnownFlakyTests: z.boolean().nullable().optional(),
  holdOnBrokenTarget: z.boolean().nullable().optional(),
};

export const createQueueRequest = z.object({ ...queueKey, ...queueSettings });
export const queueRequest = z.object(queueKey);
export const updateQueueRequest = z.object({
  ...queueKey,
  ...queueSettings,
  state: z
    .preprocess(
      (v) => (typeof v === "string" ? v.toUpperCase() : v),
      z.enum(["RUNNING", "PAUSED", "DRAINING"], {
        error: "may be set only to RUNNING, PAUSED or DRAINING (SWITCHING_MODES is entered automatically)",
      }),
    )
    .optional(),
});

export { PR_STATES };

export {
  enqueuedPullRequest,
  queueResponse,
  submittedPullRequestResponse,
  testingDetailsResponse,
  testRunInFlight,
  updatedQueueResponse,
} from "@mainline/contract";

export const metricsQuery = z
  .object({
    repo: z
      .string()
      .max(LIMITS.owner + 1 + LIMITS.name, `must be at most ${LIMITS.owner + 1 + LIMITS.name} characters`)
      .regex(/^[^/\s]+(\/[^/\s]+)+$/, "must be in owner/name form")
      .optional(),
    repoHost: boundedText("repository host", LIMITS.host).optional(),
  })
  .superRefine((q, ctx) => {
    if (q.repo !== undefined && q.repoHost === undefined) {
      ctx.addIssue({ code: "custom", path: ["repoHost"], message: "is required when repo is given" });
    }
    if (q.repoHost !== undefined && q.repo === undefined) {
      ctx.addIssue({ code: "custom", path: ["repo"], message: "is required when repoHost is given" });
    }
  });
