import { QUARANTINE_OVERRIDE_WORDS } from "@mainline/contract";
import type { FailingTestsPage } from "../api/api-types.js";
import { formatTable } from "./table.js";

type FailingTest = FailingTestsPage["tests"][number];

/** Where the test sits in its report: the file and the enclosing suite, as far as the runner said. */
export function suitePath(test: Pick<FailingTest, "file_path" | "parent">): string {
  return [test.file_path, test.parent].filter(Boolean).join(" > ") || "-";
}

/**
 * `mainline flaky list` for people: the web page's columns (owners, the 24-hour rate, the override) too. The status rules read only runs on the default branch and in the merge
 * queue, while the failure rate counts every run: the header and a closing line say so, or a test failing all
 * its PR-branch runs would read as wrongly "healthy".
 */
export function failingTestsTable(tests: readonly FailingTest[], defaultBranch: string): string[] {
  return [
    ...formatTable(
      [
        "ID",
        `STATUS (ON ${defaultBranch} + QUEUE)`,
        "QUARANTINED",
        "OVERRIDE",
        "FAILURE RATE 7D (ALL RUNS)",
        "24H",
        "PRS 7D",
        "OWNERS",
        "SUITE",
        "NAME",
      ],
      tests.map((t) => [
        t.id,
        t.status.value,
        t.quarantined ? "yes" : "no",
        QUARANTINE_OVERRIDE_WORDS[t.quarantine_override],
        `${Math.round(t.failure_rate_last_7d * 100)}%`,
        `${Math.round(t.failure_rate_last_24h * 100)}%`,
        String(t.pull_requests_impacted_last_7d),
        t.codeowners.join(",") || "-",
        suitePath(t),
        t.variant ? `${t.name} [${t.variant}]` : t.name,
      ]),
    ),
    "",
    `STATUS is judged on runs on ${defaultBranch} and in the merge queue; FAILURE RATE counts every run, ` +
      "PR branches included (--json has each status's reason).",
  ];
}
