import { MainlineError } from "@mainline/kit/errors/index";

/**
 * Thrown by a runner whose run the planner cancelled (a restart, a removed PR, an urgent PR):
 * the run has stopped and has no verdict. Terminal: a redelivered job of a cancelled run must not
 * run again.
 */
export class TestRunCancelledError extends MainlineError {
  readonly code = "ABORTED";
  readonly retryable = false;

  constructor(testRunId?: string) {
    super(testRunId === undefined ? "the test run was cancelled" : `test run ${testRunId} was cancelled`);
  }
}
