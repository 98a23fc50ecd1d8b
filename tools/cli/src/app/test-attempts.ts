import { parseJUnitXml } from "@mainline/junit";
import type { CliIo } from "../cli-io.js";
import {
  afterRetry,
  firstAttempt,
  stopRetrying,
  type AttemptTests,
  type FlakyTest,
  type RetryState,
} from "../domain/flaky-retry.js";
import { readJunitFiles, type JunitFile } from "./junit-files.js";
import { runTestCommand } from "./run-test-command.js";
import { uploadResults, type TestRunFacts } from "./quarantine-gate.js";
import type { MainlineApi } from "../api/mainline-api.js";

/** One retry of the test command, as `mainline test` reports it. */
export interface RetryAttempt {
  attempt: number;
  exitCode: number;
  failed: number;
  /** First-attempt failures this attempt passed. */
  nowPassing: string[];
  uploaded: boolean;
  uploadError?: string;
}

export interface RetryOutcome {
  attempts: RetryAttempt[];
  flaky: FlakyTest[];
  /** First-attempt failures no retry passed. */
  stillFailing: string[];
  /** Why the retries stopped (or did not start). */
  stoppedBecause: string;
}

export interface RetryPlan {
  argv: readonly string[];
  globs: readonly string[];
  retries: number;
  maxFailedForRetry: number;
  facts: TestRunFacts;
  /** Names of first-attempt failures already forgiven (quarantined): never retried for. */
  forgiven: ReadonlySet<string>;
  outputToStderr: boolean;
  note: (line: string) => void;
}

/**
 * The tests of one attempt's reports. A test is its display name (class or suite, then name): the same name the
 * quarantine verdict reports, so a quarantined failure is not retried for.
 */
export function attemptTests(files: readonly JunitFile[]): AttemptTests {
  const failed = new Map<string, string>();
  const passed = new Set<string>();
  files.forEach((file, index) => {
    let results;
    try {
      results = parseJUnitXml(file.content, { field: `junit[${index}] (${file.path})` });
    } catch {
      return; // an unreadable report names no test: its failures stay unresolved
    }
    for (const result of results) {
      const name = [result.classname ?? result.parent, result.name].filter(Boolean).join(" › ");
      if (result.outcome === "passed") passed.add(name);
      if (result.outcome === "failed" || result.outcome === "error") failed.set(name, name);
    }
  });
  for (const name of passed) failed.delete(name);
  return { failed, passed };
}

/**
 * Re-runs the test command while first-attempt failures remain unresolved, retries are left, and the last
 * attempt failed few enough tests to look like a flake. Every attempt's reports are uploaded, so the flaky-test
 * service sees the failure and the pass on the same commit.
 */
export async function retryFailedTests(
  api: MainlineApi,
  io: CliIo,
  plan: RetryPlan,
  first: AttemptTests,
): Promise<RetryOutcome> {
  let state: RetryState = firstAttempt(first, plan.forgiven);
  let last = first;
  const attempts: RetryAttempt[] = [];
  for (let attempt = 2; ; attempt++) {
    const stop = stopRetrying(state, plan.retries - attempts.length, last, plan.maxFailedForRetry);
    if (stop !== undefined) return outcome(attempts, state, stop);
    plan.note(
      `mainline test: attempt ${attempt} of ${plan.retries + 1}: re-running for ${state.unresolved.size} failed test(s)`,
    );
    const startedAt = new Date();
    const ran = await runTestCommand(plan.argv, io, plan.outputToStderr);
    const files = await readJunitFiles(io.cwd, plan.globs, startedAt.getTime());
    const uploaded = await uploadResults(api, { ...plan.facts, startedAt }, files);
    last = attemptTests(files);
    const before = state.flaky.length;
    state = afterRetry(state, attempt, last);
    const nowPassing = state.flaky.slice(before).map((t) => t.name);
    attempts.push({
      attempt,
      exitCode: ran.exitCode,
      failed: last.failed.size,
      nowPassing,
      uploaded: uploaded.upload !== undefined,
      ...(uploaded.uploadError !== undefined && { uploadError: uploaded.uploadError }),
    });
    if (uploaded.uploadError)
      plan.note(`mainline test: attempt ${attempt} was not uploaded: ${uploaded.uploadError}`);
    if (files.length === 0) return outcome(attempts, state, `attempt ${attempt} wrote no JUnit report`);
  }
}

function outcome(attempts: RetryAttempt[], state: RetryState, stoppedBecause: string): RetryOutcome {
  return { attempts, flaky: state.flaky, stillFailing: [...state.unresolved.values()], stoppedBecause };
}
