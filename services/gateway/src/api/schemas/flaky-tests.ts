import { z } from "zod";
import { FLAKY_SETTING_RANGES, RESULT_CONTEXTS, type FlakyIntegerSetting } from "@mainline/contract";
import { prNumber, repoSchema, upperEnum } from "./common.js";
import { boundedText, identifier, LIMITS } from "./limits.js";

/**
 * Request and response shapes of the flaky-test endpoints. list-failing-tests is the spec's, field for
 * field (snake_case); the others are ours and follow its spelling, except get-quarantine-config, whose
 * `{ isDisabled, testIds }` is what CI wrappers of the hosted service read (compat-notes).
 */

const dateTime = (what: string) =>
  z.iso.datetime({ offset: true, error: `must be an RFC 3339 date-time with an offset (${what})` });
const text = (what: string) => boundedText(what, LIMITS.name);
const testIdField = z.uuid({ error: "must be a test id (the UUID of list-failing-tests)" });

export const listFailingTestsRequest = z.object({
  repo: repoSchema,
  org_url_slug: boundedText("the organization's slug", LIMITS.slug),
  start_time: dateTime("inclusive start, e.g. 2025-03-07T00:00:00Z"),
  end_time: dateTime("exclusive end, within 7 days of start_time"),
  page_query: z.object({
    page_size: z
      .int({ error: "must be an integer from 1 to 100" })
      .min(1, "must be an integer from 1 to 100")
      .max(100, "must be an integer from 1 to 100"),
    page_token: z
      .string({ error: "must be a string" })
      .max(1024, "must be at most 1024 characters")
      .optional(),
  }),
});

/** JUnit XML files travel as strings inside JSON, one array element per file. */
export const uploadTestResultsRequest = z.object({
  repo: repoSchema,
  commit_sha: z.string().regex(/^[0-9a-fA-F]{4,64}$/, "must be a commit sha (hex)"),
  branch: text("branch the tests ran on"),
  pr_number: prNumber.optional(),
  variant: z.string({ error: "must be a string" }).max(200, "must be at most 200 characters").optional(),
  job_name: z.string({ error: "must be a string" }).max(200, "must be at most 200 characters").optional(),
  run_started_at: dateTime("when the run started").optional(),
  context: upperEnum(RESULT_CONTEXTS).optional(),
  upload_id: identifier("your id for this upload; a repeat is a no-op").optional(),
  junit: z
    .array(z.string({ error: "must be a JUnit XML document as a string" }), {
      error: "must be an array of JUnit XML documents (strings)",
    })
    .min(1, "must hold at least one JUnit XML document")
    .max(1000, "must hold at most 1000 JUnit XML documents"),
});

export const repoRequest = z.object({ repo: repoSchema });

const ratio = z
  .number({ error: "must be a number" })
  .gt(0, "must be greater than 0")
  .max(1, "must be at most 1");
/** A flaky-rule setting within the contract's range: the 400 names the bound it crossed. */
const flakySetting = (name: FlakyIntegerSetting, unit = "") => {
  const [min, max] = FLAKY_SETTING_RANGES[name];
  return z
    .int({ error: `must be an integer${unit}` })
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}${unit}`);
};

export const updateRepositorySettingsRequest = z
  .object({
    repo: repoSchema,
    quarantining_enabled: z.boolean({ error: "must be a boolean" }).optional(),
    auto_quarantine_enabled: z.boolean({ error: "must be a boolean" }).optional(),
    flaky_failure_rate_threshold: ratio.optional(),
    min_runs: flakySetting("min_runs").optional(),
    rate_window_hours: flakySetting("rate_window_hours", " (hours)").optional(),
    recovery_window_hours: flakySetting("recovery_window_hours", " (hours)").optional(),
    default_branch: text("branch whose failures count toward broken").optional(),
    broken_after_consecutive_failures: flakySetting("broken_after_consecutive_failures").optional(),
  })
  .strict();

export const setQuarantineOverrideRequest = z.object({
  repo: repoSchema,
  test_id: testIdField,
  // null, "" or "NONE" clear the override (automatic quarantining decides again).
  override: z.union(
    [z.null(), z.literal(""), upperEnum(["ALWAYS_QUARANTINE", "NEVER_QUARANTINE", "NONE"] as const)],
    { error: "must be ALWAYS_QUARANTINE, NEVER_QUARANTINE, or NONE / null to clear" },
  ),
});

export const getTestRequest = z.object({ repo: repoSchema, test_id: testIdField });

export const linkTicketRequest = z.object({
  repo: repoSchema,
  test_id: testIdField,
  // An empty string removes the link.
  url: z
    .string({ error: "must be a string (the ticket's URL, or empty to remove the link)" })
    .max(2048, "must be at most 2048 characters"),
});

export const setCodeownersRequest = z.object({
  repo: repoSchema,
  content: z
    .string({ error: "must be a string (the CODEOWNERS file's content)" })
    .max(1_048_576, "must be at most 1048576 characters"),
});

export {
  getTestResponse,
  listFailingTestsResponse,
  quarantineConfigResponse,
  repositorySettings,
  RESULT_CONTEXTS,
  setCodeownersResponse,
  uploadTestResultsResponse,
} from "@mainline/contract";

/** Ours: the organisation's repositories that have test results, sorted (the web page's picker). */
export const listRepositoriesResponse = z.object({ repositories: z.array(repoSchema) });

export type ListRepositoriesResponse = z.infer<typeof listRepositoriesResponse>;
