import {
  TEST_INSIGHTS_BUCKET_NAMES,
  TEST_INSIGHTS_PAGE,
  TEST_INSIGHTS_PERIOD_NAMES,
  type TestInsightsResponse,
  type TestTrendResponse,
} from "@mainline/contract";
import { InvalidArgumentError, type Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { withRepoOption, wholeNumberIn } from "../command-options.js";
import { formatRepositoryRef } from "../domain/repository-ref.js";
import { testInsightsTable, testTrendTable } from "../output/test-insights-table.js";
import { insightsCommand } from "./insights-queue-command.js";

function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    const found = values.find((v) => v === value.trim().toLowerCase());
    if (found === undefined) throw new InvalidArgumentError(`must be one of ${values.join(", ")}`);
    return found;
  };
}

interface TestsOptions {
  period: (typeof TEST_INSIGHTS_PERIOD_NAMES)[number];
  bucket: (typeof TEST_INSIGHTS_BUCKET_NAMES)[number];
  limit: number;
  cursor?: string;
  test?: string;
}

/** `mainline insights tests`: POST /v1/insights/tests (or /v1/insights/test with --test) as tables. */
export function registerInsightsTestsCommand(program: Command, cli: CliContext): void {
  withRepoOption(
    insightsCommand(program)
      .command("tests")
      .description(
        "a repository's test runs, failures, flaky and broken tests per hour or day, and its costliest tests",
      )
      .option(
        "--period <period>",
        `${TEST_INSIGHTS_PERIOD_NAMES.join(", ")}`,
        oneOf(TEST_INSIGHTS_PERIOD_NAMES),
        "7d",
      )
      .option("--bucket <bucket>", "hour or day", oneOf(TEST_INSIGHTS_BUCKET_NAMES), "day")
      .option(
        "--limit <n>",
        `costliest tests per page (at most ${TEST_INSIGHTS_PAGE.maxLimit})`,
        wholeNumberIn([1, TEST_INSIGHTS_PAGE.maxLimit]),
        TEST_INSIGHTS_PAGE.defaultLimit,
      )
      .option("--cursor <cursor>", "the next page of costliest tests (the cursor the previous page printed)")
      .option("--test <id>", "one test instead: its latest runs and its failure rate over the period"),
  ).action(async (opts: TestsOptions, command: Command) => {
    const repository = cli.repository(command);
    const out = cli.output(command);
    if (opts.test !== undefined) {
      const trend = await cli.api().post<TestTrendResponse>("/insights/test", {
        repository,
        test_id: opts.test,
        period: opts.period,
        bucket: opts.bucket,
      });
      out.result(trend, () => testTrendTable(trend));
      return;
    }
    const answer = await cli.api().post<TestInsightsResponse>("/insights/tests", {
      repository,
      period: opts.period,
      bucket: opts.bucket,
      limit: opts.limit,
      ...(opts.cursor !== undefined ? { cursor: opts.cursor } : {}),
    });
    out.result(answer, () => testInsightsTable(formatRepositoryRef(repository), answer));
  });
}
