import { setTimeout as sleep } from "node:timers/promises";
import { isRetryable, retryDelayMs } from "@mainline/kit/errors/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { GitHubCall, GitHubOutbox } from "../store/github-outbox.js";
import type { GitHubCallSender } from "./github-call-sender.js";

export interface GitHubOutboxLoopOptions {
  outbox: GitHubOutbox;
  sender: GitHubCallSender;
  logger: Logger;
  /** How long a claimed call is ours; a process that dies holding it hands it on after this. */
  leaseMs: number;
  /** Attempts at one version of a call before it is given up (logged and kept for `github status`). */
  maxAttempts: number;
  /** First wait after a failure without retry-after; doubles per attempt, at most ten minutes. */
  retryMs: number;
  /** Longest sleep between looks at the outbox (writes of this process wake it at once). */
  pollMs: number;
  now?: () => Date;
}

const MAX_BACKOFF_MS = 10 * 60_000;

/**
 * Sends the outbox to GitHub, one call at a time (GitHub asks integrators not to send writes concurrently),
 * oldest due first. A call leaves the outbox only when GitHub has it or refused it for good.
 */
export class GitHubOutboxLoop {
  private stopped = false;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly now: () => Date;

  constructor(private readonly options: GitHubOutboxLoopOptions) {
    this.now = options.now ?? (() => new Date());
    options.outbox.onDue(() => this.wake?.());
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Finishes the call in hand, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  /** A crash, for tests: stop looking at once; a call in hand stays claimed until its lease runs out. */
  kill(): void {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
  }

  private async loop(): Promise<void> {
    const { outbox, logger } = this.options;
    while (!this.stopped) {
      let call: GitHubCall | null = null;
      try {
        call = await outbox.claimDue(this.now(), this.options.leaseMs);
        if (call) await this.attempt(call);
        else await this.idle();
      } catch (error) {
        if (this.stopped) return;
        logger.warn({ err: error, call: call?._id }, "GitHub outbox: pass failed; trying again shortly");
        await this.idle(1000);
      }
    }
  }

  private async attempt(call: GitHubCall): Promise<void> {
    const { outbox, sender, logger } = this.options;
    const retried = (call.claims ?? 1) > 1;
    try {
      const ids = await sender.send(call, retried);
      if (this.stopped && this.abort.signal.aborted) return;
      await outbox.done(call, ids, this.now());
      logger.info({ call: call._id, attempts: call.attempts }, "GitHub outbox: sent");
    } catch (error) {
      if (this.abort.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      if (!isRetryable(error) || call.attempts >= this.options.maxAttempts) {
        await outbox.giveUp(call, message, this.now());
        logger.warn(
          { call: call._id, attempts: call.attempts, err: message },
          "GitHub outbox: gave up on a call",
        );
        return;
      }
      const backoff = Math.min(this.options.retryMs * 2 ** (call.attempts - 1), MAX_BACKOFF_MS);
      const delay = retryDelayMs(error, backoff);
      await outbox.retryLater(call, delay, message, this.now());
      logger.info(
        { call: call._id, attempts: call.attempts, delay_ms: delay, err: message },
        "GitHub outbox: retry later",
      );
    }
  }

  /** Sleeps until the next call falls due, a write wakes the loop, or pollMs passes. */
  private async idle(atMostMs = this.options.pollMs): Promise<void> {
    const next = await this.options.outbox.nextDueAt().catch(() => undefined);
    const untilDue = next ? Math.max(0, next.getTime() - this.now().getTime()) : atMostMs;
    const waitMs = Math.min(untilDue, atMostMs);
    if (waitMs <= 0) return;
    const woken = new Promise<void>((resolve) => (this.wake = resolve));
    const timer = new AbortController();
    await Promise.race([woken, sleep(waitMs, undefined, { signal: timer.signal }).catch(() => undefined)]);
    timer.abort();
    this.wake = undefined;
  }
}
