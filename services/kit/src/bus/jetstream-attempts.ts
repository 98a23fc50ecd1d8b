import { ErrorCode, NatsError } from "nats";

/** How one JetStream request is tried: a short wait per attempt, sent again while the budget lasts. */
export interface AttemptPolicy {
  /** How long one attempt waits for its answer. */
  attemptMs: number;
  /** How long all attempts together may take before the last failure reaches the caller. */
  budgetMs: number;
  /** The pause after a quick refusal (no responders), so a leaderless stream is not asked in a busy loop. */
  pauseMs: number;
}

/**
 * A request sent while the stream it names has no leader (its node just died or froze, the others are still
 * electing one: 4-9 s in nats-server 2.10), or sent on a connection that then died, is never answered: the client
 * waits out its whole timeout (5 s) even when the new leader took over a second later. Asked again every second,
 * the request reaches the new leader within a second of its election; the budget is what one timeout plus an
 * election take.
 */
export const JETSTREAM_ATTEMPTS: AttemptPolicy = { attemptMs: 1_000, budgetMs: 12_000, pauseMs: 100 };

/**
 * True for a failure that says nothing about the request itself, only that no leader answered in time: a
 * timeout, no responders, or the JetStream API's own 503 (the cluster briefly without a meta or stream leader).
 */
export function isTransientJetStreamFailure(error: unknown): boolean {
  if (!(error instanceof NatsError)) return false;
  const code = error.code as ErrorCode;
  if (code === ErrorCode.Timeout || code === ErrorCode.NoResponders) return true;
  return error.jsError()?.code === 503;
}

/** JetStream's "no suitable peers for placement": a replicated asset asked for while a node is down or unknown. */
const NO_PEERS_FOR_PLACEMENT = 10005;

/**
 * True for what a create-or-bind may meet while a node is lost or the cluster still forming: a transient failure,
 * or no peers to place a replicated asset on yet. Only for idempotent requests (open a bucket, start a watch).
 */
export function isTransientOpeningFailure(error: unknown): boolean {
  if (isTransientJetStreamFailure(error)) return true;
  return error instanceof NatsError && error.jsError()?.err_code === NO_PEERS_FOR_PLACEMENT;
}

/**
 * Runs `request` with `policy.attemptMs` as its timeout, again after a failure `isTransient` accepts, until it
 * succeeds, fails for another reason, or the budget is spent. Only for requests that are safe to send twice: reads, and writes
 * that carry a message id (the stream keeps the first and acknowledges the repeat as a duplicate) or a
 * compare-and-set (a repeat of a write that landed is refused as a conflict).
 */
export async function withAttempts<T>(
  request: (timeoutMs: number) => Promise<T>,
  policy: AttemptPolicy = JETSTREAM_ATTEMPTS,
  isTransient: (error: unknown) => boolean = isTransientJetStreamFailure,
): Promise<T> {
  const deadline = Date.now() + policy.budgetMs;
  for (;;) {
    const startedAt = Date.now();
    const left = deadline - startedAt;
    try {
      return await request(Math.max(1, Math.min(policy.attemptMs, left)));
    } catch (error) {
      if (!isTransient(error)) throw error;
      // A quick refusal waits a little; a timeout has waited already.
      const pause = Date.now() - startedAt < policy.pauseMs ? policy.pauseMs : 0;
      if (Date.now() + pause >= deadline) throw error;
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
