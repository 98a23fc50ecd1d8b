import { isRetryable, MainlineError, UnavailableError } from "@mainline/kit/errors/index";

const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 30_000;

/**
 * Whether a failure should send the job back to the stream rather than end it with a result:
 * retryable (a remote that does not answer, NATS trouble, an unexpected exception) and not yet on
 * the last delivery the consumer allows, after which the job ends with an ERROR/FAILED result so
 * the coordinator is never left waiting.
 */
export function shouldRetry(error: unknown, deliveryCount: number, maxDeliver: number): boolean {
  return isRetryable(error) && deliveryCount < maxDeliver;
}

/** The error to throw so the consumer naks with a delay that doubles per delivery. */
export function retryLater(error: unknown, deliveryCount: number): UnavailableError {
  if (error instanceof UnavailableError && error.retryAfterMs === 0) return error;
  const delayMs = Math.min(FIRST_RETRY_MS * 2 ** Math.max(deliveryCount - 1, 0), LONGEST_RETRY_MS);
  const reason = error instanceof Error ? error.message : String(error);
  return new UnavailableError(
    error instanceof MainlineError ? reason : `unexpected failure: ${reason}`,
    delayMs,
    { cause: error },
  );
}
