import { z } from "zod";
import {
  TEST_INSIGHTS_BUCKET_NAMES,
  TEST_INSIGHTS_PAGE,
  TEST_INSIGHTS_PERIOD_NAMES,
} from "@mainline/contract";
import { repoSchema } from "./common.js";
import { intInRange } from "./limits.js";

/** Requests of the test insights (ours): a repository's tests over a period, and one test's. */

const period = z
  .enum(TEST_INSIGHTS_PERIOD_NAMES, { error: `must be one of ${TEST_INSIGHTS_PERIOD_NAMES.join(", ")}` })
  .meta({ description: "The period the charts cover, ending now" });
const bucket = z
  .enum(TEST_INSIGHTS_BUCKET_NAMES, { error: `must be one of ${TEST_INSIGHTS_BUCKET_NAMES.join(", ")}` })
  .meta({ description: "One point per UTC hour or day" });

export const testInsightsRequest = z.strictObject({
  repository: repoSchema,
  period,
  bucket,
  cursor: z
    .string({ error: "must be a string (an earlier answer's next_cursor)" })
    .max(
      TEST_INSIGHTS_PAGE.maxCursorLength,
      `must be at most ${TEST_INSIGHTS_PAGE.maxCursorLength} characters`,
    )
    .optional(),
  limit: intInRange(1, TEST_INSIGHTS_PAGE.maxLimit)
    .optional()
    .meta({ description: `Costliest tests per page, ${TEST_INSIGHTS_PAGE.defaultLimit} unless set` }),
});

export const testTrendRequest = z.strictObject({
  repository: repoSchema,
  test_id: z.uuid({ error: "must be a test id (the UUID of list-failing-tests)" }),
  period,
  bucket,
});

export { testInsightsResponse, testTrendResponse } from "@mainline/contract";
