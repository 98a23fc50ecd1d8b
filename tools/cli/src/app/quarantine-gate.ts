import { parseJUnitXml, testId } from "@mainline/junit";
import type { QuarantineConfig, RepositoryRef, UploadSummary } from "../api/api-types.js";
import { ServiceUnreachableError, type MainlineApi } from "../api/mainline-api.js";
import {
  quarantineVerdict,
  verdictExitCode,
  type FailingTest,
  type QuarantineVerdict,
} from "../domain/quarantine-verdict.js";
import type { JunitFile } from "./junit-files.js";
import { organisationOfToken } from "./token-organisation.js";

export interface TestRunFacts {
  repo: RepositoryRef;
  commitSha: string;
  branch: string;
  prNumber?: number | undefined;
  variant?: string | undefined;
  jobName?: string | undefined;
  /** The organisation's slug, part of every test id; looked up from the token when not given. */
  org?: string | undefined;
  startedAt: Date;
}

export interface GateResult {
  exitCode: number;
  commandExitCode: number;
  /** What decided the exit code, in one sentence. */
  reason: string;
  verdict?: QuarantineVerdict["kind"];
  upload?: UploadSummary;
  /** Why the JUnit reports the command wrote were not uploaded: CI must hear of results that were lost. */
  uploadError?: string;
  quarantined: FailingTest[];
  notQuarantined: FailingTest[];
}

/**
 * After the test command: upload its JUnit reports, then decide the exit code as compat-notes "Flaky tests"
 * says: 0 when every failing test is quarantined, the command's own code otherwise, and the command's own code
 * whenever the service cannot answer (a CI must not go green because Mainline is down).
 */
export async function applyQuarantine(
  api: MainlineApi,
  facts: TestRunFacts,
  commandExitCode: number,
  files: readonly JunitFile[],
): Promise<GateResult> {
  const outcome = (reason: string, extra: Partial<GateResult> = {}): GateResult => ({
    exitCode: commandExitCode,
    commandExitCode,
    reason,
    quarantined: [],
    notQuarantined: [],
    ...extra,
  });
  const { upload, uploadError, unreachable } = await uploadResults(api, facts, files);
  if (unreachable && uploadError) return outcome(uploadError, { uploadError });
  const withUpload = upload ? { upload } : uploadError ? { uploadError } : {};
  if (commandExitCode === 0) return outcome("the command passed", { ...withUpload, verdict: "passed" });
  if (files.length === 0) {
    return outcome(
      "the command failed and wrote no JUnit report, so no failure can be quarantined",
      withUpload,
    );
  }

  let failing: FailingTest[];
  let quarantine: QuarantineConfig;
  try {
    const org = facts.org ?? (await organisationOfToken(api));
    failing = failingTests(files, { ...facts, org });
    quarantine = await api.post<QuarantineConfig>("/flaky-tests/get-quarantine-config", { repo: facts.repo });
  } catch (error) {
    return outcome((error as Error).message, withUpload);
  }
  const verdict = quarantineVerdict(commandExitCode, failing, quarantine);
  const exitCode = verdictExitCode(verdict, commandExitCode);
  const base = { ...withUpload, verdict: verdict.kind, exitCode };
  switch (verdict.kind) {
    case "passed":
      return outcome("the command passed", base);
    case "no-failing-tests-reported":
      return outcome("the command failed but its JUnit reports name no failing test", base);
    case "quarantine-disabled":
      return outcome("quarantining is off for this repository", { ...base, notQuarantined: verdict.failing });
    case "all-quarantined":
      return outcome(`every failing test is quarantined (${names(verdict.failing)})`, {
        ...base,
        quarantined: verdict.failing,
      });
    case "some-not-quarantined":
      return outcome(`not quarantined: ${names(verdict.notQuarantined)}`, {
        ...base,
        quarantined: verdict.quarantined,
        notQuarantined: verdict.notQuarantined,
      });
  }
}

/**
 * Uploads one attempt's JUnit reports (none: nothing to upload). Never throws: a report that could not be
 * uploaded is said, and `unreachable` tells a service that could not be reached from one that refused.
 */
export async function uploadResults(
  api: MainlineApi,
  facts: TestRunFacts,
  files: readonly JunitFile[],
): Promise<{ upload?: UploadSummary; uploadError?: string; unreachable?: boolean }> {
  if (files.length === 0) return {};
  try {
    const upload = await api.post<UploadSummary>("/flaky-tests/upload", {
      repo: facts.repo,
      commit_sha: facts.commitSha,
      branch: facts.branch,
      run_started_at: facts.startedAt.toISOString(),
      junit: files.map((file) => file.content),
      ...(facts.prNumber !== undefined ? { pr_number: facts.prNumber } : {}),
      ...(facts.variant ? { variant: facts.variant } : {}),
      ...(facts.jobName ? { job_name: facts.jobName } : {}),
    });
    return { upload };
  } catch (error) {
    return { uploadError: (error as Error).message, unreachable: error instanceof ServiceUnreachableError };
  }
}

/** The same parser and test id the service uses, so local ids match the quarantine list. */
function failingTests(files: readonly JunitFile[], facts: TestRunFacts & { org: string }): FailingTest[] {
  const tests = new Map<string, { name: string; passed: boolean; failed: boolean }>();
  files.forEach((file, index) => {
    for (const result of parseJUnitXml(file.content, { field: `junit[${index}] (${file.path})` })) {
      const id = testId({
        org: facts.org,
        repo: facts.repo,
        file: result.file,
        classname: result.classname,
        parent: result.parent,
        name: result.name,
        variant: facts.variant,
      });
      const test = tests.get(id) ?? { name: displayName(result), passed: false, failed: false };
      // A case retried inside the job that passed once is a flaky pass, not a failure of this run.
      if (result.outcome === "passed") test.passed = true;
      if (result.outcome === "failed" || result.outcome === "error") test.failed = true;
      tests.set(id, test);
    }
  });
  return [...tests.entries()]
    .filter(([, t]) => t.failed && !t.passed)
    .map(([id, t]) => ({ id, name: t.name }));
}

function displayName(result: { name: string; classname?: string; parent: string }): string {
  return [result.classname ?? result.parent, result.name].filter(Boolean).join(" › ");
}

function names(tests: readonly FailingTest[]): string {
  const shown = tests.slice(0, 5).map((t) => t.name);
  return tests.length > 5 ? `${shown.join(", ")} and ${tests.length - 5} more` : shown.join(", ");
}
