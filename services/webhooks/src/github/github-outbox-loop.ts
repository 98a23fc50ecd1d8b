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
  /**
   * Calls in flight at once. Writes stay spaced per installation by the App client, so several workers let one
   * installation's queue of writes not hold up another's. Default 4.
   */
  workers?: number;
  now?: () => Date;
}

const MAX_BACKOFF_MS = 10 * 60_000;
const MIN_IDLE_MS = 20;

/**
 * Sends the outbox to GitHub, oldest due first, with a few workers; each call is held by one worker at a time
 * (a lease in the store), and the App client spaces an installation's writes as GitHub asks. A call leaves the
 * outbox only when GitHub has it or refused it for good.
 */
export class GitHubOutboxLoop {
  private stopped = false;
  private readonly sleepers = new Set<() => void>();
  /** PRs a worker of this process is sending a call for: their other calls wait, to keep GitHub's order. */
  private readonly busy = new Set<string>();
  private claiming: Promise<void> = Promise.resolve();
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly now: () => Date;

  constructor(private readonly options: GitHubOutboxLoopOptions) {
    this.now = options.now ?? (() => new Date());
    options.outbox.onDue(() => this.wakeAll());
  }

  start(): void {
    const workers = this.options.workers ?? 4;
    this.running ??= Promise.all(Array.from({ length: workers }, () => this.loop())).then(() => undefined);
  }

  /** Finishes the call in hand, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeAll();
    await this.running;
  }

  /** A crash, for tests: stop looking at once; a call in hand stays claimed until its lease runs out. */
  kill(): void {
    this.stopped = true;
    this.abort.abort();
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
  }

  private async loop(): Promise<void> {
    const { logger } = this.options;
    while (!this.stopped) {
      let call: GitHubCall | null = null;
      try {
        call = await this.claim();
        if (!call) await this.idle();
        else {
          try {
            await this.attempt(call);
          } finally {
            this.busy.delete(call.prKey);
            // The PR's next call (if any) may go now.
            this.wakeAll();
          }
        }
      } catch (error) {
        if (this.stopped) return;
        logger.warn({ err: error, call: call?._id }, "GitHub outbox: pass failed; trying again shortly");
        await this.idle(1000);
      }
    }
  }

  /** Claims are made one at a time in this process, so no two workers hold calls of one PR. */
  private claim(): Promise<GitHubCall | null> {
    const claimed = this.claiming.then(async () => {
      const call = await this.options.outbox.claimDue(this.now(), this.options.leaseMs, [...this.busy]);
      if (call) this.busy.add(call.prKey);
      return call;
    });
    this.claiming = claimed.then(
      () => undefined,
      () => undefined,
    );
    return claimed;
  }

  private async attempt(call: GitHubCall): Promise<void> {
    const { outbox, sender, logger } = this.options;
    const retried = (call.claims ?? 1) > 1;
    try {
      const ids = await sender.send(call, retried);
      if (this.stopped && this.abort.signal.aborted) return;
      const { sentVersion, ...gitHubIds } = ids;
      await outbox.done({ ...call, version: sentVersion ?? call.version }, gitHubIds, this.now());
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
    // Never less than a few ms: a due call of a PR another worker holds must not make this a busy loop (the
    // holder wakes the sleepers when it is done).
    const waitMs = Math.max(MIN_IDLE_MS, Math.min(untilDue, atMostMs));
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    this.sleepers.add(wake);
    const timer = new AbortController();
    await Promise.race([woken, sleep(waitMs, undefined, { signal: timer.signal }).catch(() => undefined)]);
    timer.abort();
    this.sleepers.delete(wake);
  }
}
