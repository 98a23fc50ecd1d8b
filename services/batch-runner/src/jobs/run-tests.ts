import type { Logger } from "@mainline/kit/logging/index";
import { TEST_RUN_OUTPUT_MAX_BYTES, type TestRunOutputs } from "@mainline/kit/streams/index";
import type { ProjectedBranch } from "../git/projected-branch.js";
import type { RepositoryCache } from "../git/repository-cache.js";
import { withTestCommitWorktree } from "../git/test-commit-worktree.js";
import { runCommand } from "../runner/command-runner.js";
import type { RunOutcome } from "../runner/run-result.js";
import type { CommandTestRunner, TestRunRequest } from "./test-run-request.js";

/** What the runner said about the test commit, whichever runner it was. */
export interface RunVerdict {
  readonly outcome: RunOutcome;
  readonly junitXml: string[];
  readonly message: string;
  readonly detailsUrl?: string;
}

export interface RunTestsDeps {
  readonly cache: RepositoryCache;
  readonly outputs: TestRunOutputs;
  readonly logger: Logger;
}

/**
 * Where the gateway serves a COMMAND run's kept output, under its public URL. A path, not a URL: the gateway
 * knows where users reach it, and the web UI links to the same path.
 */
export const testRunOutputPath = (testRunId: string): string =>
  `/v1/test-runs/${encodeURIComponent(testRunId)}/output`;

// The result message travels in events and webhooks; the end of the output is what explains a failure.
const MESSAGE_OUTPUT_CHARS = 4000;
// The JUnit travels inside one NATS message (the result, then the upload), and NATS refuses
// messages over its max_payload (1 MiB by default); files beyond this total are left out.
const MAX_JUNIT_BYTES = 512 * 1024;

/**
 * Runs the job's test command against the pushed test commit. When `cancel` fires, the command's
 * process group is killed; it rejects and the caller, which owns `cancel`, knows why.
 */
export async function runTests(
  request: TestRunRequest,
  runner: CommandTestRunner,
  branch: ProjectedBranch,
  deps: RunTestsDeps,
  cancel: AbortSignal,
): Promise<RunVerdict> {
  const timeoutSeconds = Math.round(request.timeoutMs / 1000);
  const { command, junitGlobs, env } = runner;
  const run = await withTestCommitWorktree(
    deps.cache,
    {
      remoteUrl: request.projected.remoteUrl,
      testBranch: branch.testBranch,
      testBranchSha: branch.testBranchSha,
    },
    (cwd) =>
      runCommand({
        command,
        cwd,
        timeoutMs: request.timeoutMs,
        junitGlobs,
        maxJunitBytes: MAX_JUNIT_BYTES,
        outputTailBytes: TEST_RUN_OUTPUT_MAX_BYTES,
        signal: cancel,
        // Lets a test command tell which run it belongs to (e.g. to tag its own reports).
        env: {
          ...env,
          MAINLINE_TEST_RUN_ID: request.testRunId,
          MAINLINE_TEST_BRANCH: branch.testBranch,
          MAINLINE_TEST_SHA: branch.testBranchSha,
        },
      }),
  );
  const said =
    run.outcome === "PASSED"
      ? "the test command passed"
      : run.outcome === "TIMED_OUT"
        ? `the test command exceeded the testing timeout of ${timeoutSeconds} s`
        : `the test command exited with code ${run.exitCode}`;
  const tail = run.outputTail.slice(-MESSAGE_OUTPUT_CHARS).trim();
  const outputKept = await keepOutput(deps, request.testRunId, run.outputTail);
  const outputPath = outputKept ? testRunOutputPath(request.testRunId) : undefined;
  return {
    outcome: run.outcome,
    junitXml: run.junitFiles.map((file) => file.content),
    message:
      run.outcome !== "PASSED" && tail !== ""
        ? `${said}${outputPath ? ` (full output: ${outputPath})` : ""}\n${tail}`
        : said,
    ...(outputPath !== undefined && { detailsUrl: outputPath }),
  };
}

/** The verdict stands without the output: a store that refuses is logged, and the run is not repeated. */
async function keepOutput(deps: RunTestsDeps, testRunId: string, output: string): Promise<boolean> {
  try {
    await deps.outputs.keep(testRunId, output);
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, testRunId }, "could not keep the test command's output");
    return false;
  }
}
