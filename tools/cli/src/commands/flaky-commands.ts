import { quarantineOverrideOfWord } from "@mainline/contract";
import { InvalidArgumentError, type Command } from "commander";
import type { FailingTestsPage, FlakyRepositorySettings } from "../api/api-types.js";
import { organisationOfToken } from "../app/token-organisation.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { withRepoOption, wholeNumber } from "../command-options.js";
import { formatRepositoryRef } from "../domain/repository-ref.js";
import { failingTestsTable } from "../output/failing-tests-table.js";

/** The API keeps the list to 7 days (spec); the CLI says so before asking. */
const MAX_WINDOW_HOURS = 7 * 24;

/**
 * `mainline flaky ...`: the flaky-test service's per-repository settings (quarantining is off until someone
 * turns it on), per-test quarantine overrides, and the failing tests of a window.
 */
export function registerFlakyCommands(program: Command, cli: CliContext): void {
  const flaky = program
    .command("flaky")
    .description("flaky tests: quarantine settings, overrides, failing tests");
  const settings = flaky
    .command("settings")
    .description("a repository's quarantine switches and status rules");

  withRepoOption(settings.command("get").description("show the repository's settings")).action(
    async (_opts: unknown, command: Command) => {
      const repo = cli.repository(command);
      const shown = await cli
        .api()
        .post<FlakyRepositorySettings>("/flaky-tests/get-repository-settings", { repo });
      cli.output(command).result(shown, () => describeSettings(formatRepositoryRef(repo), shown));
    },
  );

  withRepoOption(
    settings
      .command("set")
      .description("change some settings; the others keep their value")
      .option("--quarantining", "turn quarantining on: quarantined tests no longer fail CI (`mainline test`)")
      .option("--no-quarantining", "turn quarantining off")
      .option(
        "--auto-quarantine",
        "quarantine every flaky or broken test, not only those overridden to always",
      )
      .option("--no-auto-quarantine", "quarantine only tests overridden to always")
      .option(
        "--flaky-threshold <rate>",
        "share of failed default-branch runs that makes a test flaky (0 < rate <= 1)",
        ratio,
      )
      .option("--min-runs <n>", "fewest default-branch runs before the failure rate counts", wholeNumber(1))
      .option("--rate-window <hours>", "hours of runs the failure rate looks back", wholeNumber(1))
      .option(
        "--recovery-window <hours>",
        "hours without a flaky signal before a flaky test is healthy again",
        wholeNumber(1),
      )
      .option("--default-branch <branch>", "the branch whose consecutive failures make a test broken")
      .option(
        "--broken-after <n>",
        "consecutive failed runs (default branch or merge queue) that make a test broken",
        wholeNumber(2),
      ),
  ).action(async (opts: SettingsOptions, command: Command) => {
    const changes = {
      ...(opts.quarantining !== undefined ? { quarantining_enabled: opts.quarantining } : {}),
      ...(opts.autoQuarantine !== undefined ? { auto_quarantine_enabled: opts.autoQuarantine } : {}),
      ...(opts.flakyThreshold !== undefined ? { flaky_failure_rate_threshold: opts.flakyThreshold } : {}),
      ...(opts.minRuns !== undefined ? { min_runs: opts.minRuns } : {}),
      ...(opts.rateWindow !== undefined ? { rate_window_hours: opts.rateWindow } : {}),
      ...(opts.recoveryWindow !== undefined ? { recovery_window_hours: opts.recoveryWindow } : {}),
      ...(opts.defaultBranch !== undefined ? { default_branch: opts.defaultBranch } : {}),
      ...(opts.brokenAfter !== undefined ? { broken_after_consecutive_failures: opts.brokenAfter } : {}),
    };
    if (Object.keys(changes).length === 0) {
      throw new CliError(
        "nothing to change: give a setting, e.g. --quarantining --auto-quarantine (see --help)",
      );
    }
    const repo = cli.repository(command);
    const updated = await cli
      .api()
      .post<FlakyRepositorySettings>("/flaky-tests/update-repository-settings", { repo, ...changes });
    cli.output(command).result(updated, () => describeSettings(formatRepositoryRef(repo), updated));
  });

  withRepoOption(
    flaky
      .command("override")
      .description("force a test into or out of quarantine, or give it back to the automatic rule")
      .argument("<test-id>", "the test's id (the id column of `mainline flaky list`)")
      .argument("<override>", "always, never, or auto (no override)"),
  ).action(async (testId: string, overrideText: string, _opts: unknown, command: Command) => {
    const override = quarantineOverrideOfWord(overrideText);
    if (override === undefined) {
      throw new CliError(`the override must be always, never or auto (got "${overrideText}")`);
    }
    const repo = cli.repository(command);
    await cli.api().post("/flaky-tests/set-quarantine-override", { repo, test_id: testId, override });
    cli
      .output(command)
      .result({ testId, override }, () =>
        override === "NONE"
          ? `Test ${testId}: no override; the automatic rule decides`
          : `Test ${testId}: ${override === "ALWAYS_QUARANTINE" ? "always quarantined" : "never quarantined"}` +
            " (while quarantining is on for the repository)",
      );
  });

  withRepoOption(
    flaky
      .command("list")
      .description("the tests that failed in a window (up to 7 days), with their status and quarantine")
      .option("--hours <n>", `the window: the last n hours (at most ${MAX_WINDOW_HOURS})`, wholeNumber(1), 24)
      .option("--org <slug>", "the organisation (default: the token's)"),
  ).action(async (opts: { hours: number; org?: string }, command: Command) => {
    if (opts.hours > MAX_WINDOW_HOURS) {
      throw new CliError(`--hours must be at most ${MAX_WINDOW_HOURS}: the service lists 7 days at a time`);
    }
    const repo = cli.repository(command);
    const api = cli.api();
    const org = opts.org ?? (await organisationOfToken(api));
    const end = new Date();
    const start = new Date(end.getTime() - opts.hours * 3_600_000);
    const tests: FailingTestsPage["tests"] = [];
    let pageToken: string | undefined;
    do {
      const page: FailingTestsPage = await api.post("/flaky-tests/list-failing-tests", {
        repo,
        org_url_slug: org,
        start_time: start.toISOString(),
        end_time: end.toISOString(),
        page_query: { page_size: 100, ...(pageToken ? { page_token: pageToken } : {}) },
      });
      tests.push(...page.tests);
      pageToken = page.page.next_page_token || undefined;
    } while (pageToken);
    const out = cli.output(command);
    // The branch the status is judged on, for the table's header (JSON readers have it in settings get).
    const settings =
      tests.length > 0 && !out.json
        ? await api.post<FlakyRepositorySettings>("/flaky-tests/get-repository-settings", { repo })
        : undefined;
    out.result({ tests }, () =>
      tests.length === 0
        ? `No test failed in ${formatRepositoryRef(repo)} in the last ${opts.hours} h.`
        : failingTestsTable(tests, settings?.default_branch ?? "the default branch"),
    );
  });
}

interface SettingsOptions {
  quarantining?: boolean;
  autoQuarantine?: boolean;
  flakyThreshold?: number;
  minRuns?: number;
  rateWindow?: number;
  recoveryWindow?: number;
  defaultBranch?: string;
  brokenAfter?: number;
}

function ratio(value: string): number {
  const rate = Number(value);
  if (!/^\d*\.?\d+$/.test(value.trim()) || !(rate > 0 && rate <= 1)) {
    throw new InvalidArgumentError("must be a number greater than 0 and at most 1, e.g. 0.1");
  }
  return rate;
}

function describeSettings(repo: string, s: FlakyRepositorySettings): string[] {
  const onOff = (on: boolean) => (on ? "on" : "off");
  return [
    `${repo}: quarantining ${onOff(s.quarantining_enabled)}, auto-quarantine ${onOff(s.auto_quarantine_enabled)}`,
    `  flaky from a ${s.flaky_failure_rate_threshold} failure rate on ${s.default_branch} over ${s.rate_window_hours} h` +
      ` (min ${s.min_runs} runs); healthy again after ${s.recovery_window_hours} h without a flaky signal`,
    `  broken after ${s.broken_after_consecutive_failures} consecutive failed runs`,
  ];
}
