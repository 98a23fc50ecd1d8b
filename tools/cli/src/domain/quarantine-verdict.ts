/** A test case that failed (or errored) in the command's JUnit reports, with the id the service gives it. */
export interface FailingTest {
  id: string;
  name: string;
}

export type QuarantineVerdict =
  | { kind: "passed" }
  | { kind: "no-failing-tests-reported" }
  | { kind: "quarantine-disabled"; failing: FailingTest[] }
  | { kind: "all-quarantined"; failing: FailingTest[] }
  | { kind: "some-not-quarantined"; quarantined: FailingTest[]; notQuarantined: FailingTest[] };

/**
 * compat-notes "Flaky tests": the CI wrapper re-runs the quarantine decision locally. A failed command is
 * forgiven only when its reports name failing tests and every one of them is quarantined; a crash that left
 * no failing test in the reports is never forgiven.
 */
export function quarantineVerdict(
  exitCode: number,
  failing: readonly FailingTest[],
  config: { isDisabled: boolean; testIds: readonly string[] },
): QuarantineVerdict {
  if (exitCode === 0) return { kind: "passed" };
  if (failing.length === 0) return { kind: "no-failing-tests-reported" };
  if (config.isDisabled) return { kind: "quarantine-disabled", failing: [...failing] };
  const quarantinedIds = new Set(config.testIds);
  const quarantined = failing.filter((test) => quarantinedIds.has(test.id));
  const notQuarantined = failing.filter((test) => !quarantinedIds.has(test.id));
  if (notQuarantined.length === 0) return { kind: "all-quarantined", failing: [...failing] };
  return { kind: "some-not-quarantined", quarantined, notQuarantined };
}

/** The exit code `mainline test` ends with. */
export function verdictExitCode(verdict: QuarantineVerdict, commandExitCode: number): number {
  return verdict.kind === "passed" || verdict.kind === "all-quarantined" ? 0 : commandExitCode;
}
