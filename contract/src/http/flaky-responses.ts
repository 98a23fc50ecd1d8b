import { z } from "zod";

/** The flaky-test answers of the HTTP API: the OpenAPI document, the CLI and the web page read these. */

/** Where results came from: any CI, the merge queue's own runs, or a bisection's (never flakiness evidence). */
export const RESULT_CONTEXTS = ["CI", "MERGE_QUEUE", "BISECTION"] as const;
export type ResultContext = (typeof RESULT_CONTEXTS)[number];

/** A test's status, lower case as the spec writes it; broken outranks flaky outranks healthy. */
export const TEST_STATUSES = ["healthy", "flaky", "broken"] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/** A test's quarantine override; NONE: automatic quarantining decides. */
export const QUARANTINE_OVERRIDES = ["ALWAYS_QUARANTINE", "NEVER_QUARANTINE", "NONE"] as const;
export type QuarantineOverride = (typeof QUARANTINE_OVERRIDES)[number];

/** How people name an override (the CLI's argument and tables): always, never, or auto (no override). */
export const QUARANTINE_OVERRIDE_WORDS = {
  ALWAYS_QUARANTINE: "always",
  NEVER_QUARANTINE: "never",
  NONE: "auto",
} as const satisfies Record<QuarantineOverride, string>;

/** The override a person's word names (any case), or undefined. */
export function quarantineOverrideOfWord(word: string): QuarantineOverride | undefined {
  const wanted = word.toLowerCase();
  return QUARANTINE_OVERRIDES.find((o) => QUARANTINE_OVERRIDE_WORDS[o] === wanted);
}

/** How one of a test's recent runs ended: a run that failed and then passed on retry is flaky. */
export const RECENT_RUN_OUTCOMES = ["passed", "failed", "flaky"] as const;
export type RecentRunOutcome = (typeof RECENT_RUN_OUTCOMES)[number];

const failingTest = z.object({
  id: z.uuid(),
  repository: z.object({ html_url: z.url() }),
  html_url: z.url(),
  name: z.string(),
  variant: z.string(),
  status: z.object({
    value: z.enum(TEST_STATUSES),
    reason: z.string(),
    timestamp: z.iso.datetime({ offset: true }),
  }),
  most_common_failures: z.array(
    z.object({
      summary: z.string(),
      occurrence_count: z.int().min(0),
      last_occurrence: z.iso.datetime({ offset: true }).optional(),
    }),
  ),
  failure_rate_last_7d: z.number().min(0).max(1),
  failure_rate_last_24h: z.number().min(0).max(1),
  file_path: z.string().optional(),
  parent: z.string().optional(),
  classname: z.string().optional(),
  codeowners: z.array(z.string()),
  pull_requests_impacted_last_7d: z.int().min(0),
  quarantined: z.boolean(),
  quarantine_override: z
    .enum(QUARANTINE_OVERRIDES)
    .describe("The override set on the test (set-quarantine-override); NONE: automatic quarantining decides"),
  ticket: z.object({ html_url: z.url() }).optional(),
});

export const listFailingTestsResponse = z.object({
  tests: z.array(failingTest),
  page: z.object({
    total_rows: z.number().min(0),
    total_pages: z.number().min(0),
    next_page_token: z.string(),
    prev_page_token: z.string(),
    last_page_token: z.string(),
    page_index: z.number().min(0),
  }),
});

export const uploadTestResultsResponse = z.object({
  upload_id: z.string(),
  files: z.int(),
  results: z.int(),
  passed: z.int(),
  failed: z.int(),
  skipped: z.int(),
  new_tests: z.int(),
  ignored: z
    .int()
    .min(0)
    .describe("Test cases left out of the upload because they could not be read as tests"),
  ignored_testcases: z
    .array(
      z.object({
        field: z.string().describe("The request field of the document, e.g. junit[2]"),
        suite: z.string().describe('The enclosing suites, outermost first, joined by " > "'),
        classname: z.string(),
        reason: z.string(),
      }),
    )
    .describe("The first 100 ignored test cases and why; every other result of the upload is stored"),
});

export const quarantineConfigResponse = z.object({
  isDisabled: z.boolean(),
  testIds: z.array(z.string()),
});

export const repositorySettings = z.object({
  quarantining_enabled: z.boolean(),
  auto_quarantine_enabled: z.boolean(),
  flaky_failure_rate_threshold: z.number(),
  min_runs: z.int(),
  rate_window_hours: z.int(),
  recovery_window_hours: z.int(),
  default_branch: z.string(),
  broken_after_consecutive_failures: z.int(),
});

export const getTestResponse = z.object({
  /** The failing-test record as list-failing-tests gives it now, also for a test that has not failed lately. */
  test: failingTest,
  /** The latest runs, newest first (bisection runs are never evidence, so never kept). */
  recent_runs: z.array(
    z.object({
      at: z.iso.datetime({ offset: true }),
      outcome: z.enum(RECENT_RUN_OUTCOMES),
      context: z.enum(RESULT_CONTEXTS),
      branch: z.string(),
      commit_sha: z.string(),
      pr_number: z.int().min(1).optional(),
    }),
  ),
});

export const setCodeownersResponse = z.object({ rules: z.int(), problems: z.array(z.string()) });
