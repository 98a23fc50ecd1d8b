import { UnavailableError } from "@mainline/kit/errors/index";
import { GitHubRetryableError } from "@mainline/kit/github/index";
import { PartialMergeError } from "./github-api-merge.js";

/**
 * A merge job GitHub refuses for now (a rate limit with `retry-after`, an outage) is redelivered after GitHub's
 * `retry-after` rather than the runner's own 1-30 s doubling, and those deliveries do not spend the job's
 * failure budget (`maxDeliver`), as long as the job is younger than this and the consumer has deliveries left.
 */
export const GITHUB_PATIENCE_MS = 60 * 60_000;
/** Deliveries the merge consumer allows on top of `maxDeliver`, for waits GitHub asked for (the default). */
export const GITHUB_WAIT_DELIVERIES = 30;
/** A retry-after is waited at least this long (GitHub sends 0 too) and at most this long per delivery. */
const SHORTEST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 15 * 60_000;
const MAX_TRACKED_JOBS = 10_000;

/** The GitHub error that asks to be retried later, if `error` is (or wraps) one. */
export function gitHubRetryable(error: unknown): GitHubRetryableError | undefined {
  if (error instanceof GitHubRetryableError) return error;
  if (error instanceof PartialMergeError && error.reason instanceof GitHubRetryableError) return error.reason;
  return undefined;
}

/**
 * Counts the deliveries each merge job spent waiting for GitHub, so they are not counted as failures. Kept in
 * the process: a redelivery on another replica counts them as failures, which only ends a job sooner.
 */
export class GitHubWaits {
  private readonly waits = new Map<string, number>();

  /** `waitDeliveries`: what the merge consumer allows on top of `maxDeliver` (JobConsumerSettings). */
  constructor(private readonly waitDeliveries = GITHUB_WAIT_DELIVERIES) {}

  /** The merge consumer's last delivery of a job (it allows `maxDeliver` failures and the waits on top). */
  isLastDelivery(deliveryCount: number, maxDeliver: number): boolean {
    return deliveryCount >= maxDeliver + this.waitDeliveries;
  }

  /** Deliveries of `jobId` that were failures (not waits GitHub asked for). */
  failures(jobId: string, deliveryCount: number): number {
    return deliveryCount - (this.waits.get(jobId) ?? 0);
  }

  /**
   * The error to throw so the consumer naks with GitHub's retry-after, or undefined when the job has waited
   * for GitHub long enough (the caller then treats it as any other failure).
   */
  waitFor(
    jobId: string,
    error: unknown,
    deliveryCount: number,
    maxDeliver: number,
    publishedAt: Date | undefined,
    now: Date,
  ): UnavailableError | undefined {
    const github = gitHubRetryable(error);
    if (github === undefined) return undefined;
    const delayMs = Math.min(Math.max(github.retryAfterMs, SHORTEST_WAIT_MS), LONGEST_WAIT_MS);
    const waited = publishedAt === undefined ? 0 : now.getTime() - publishedAt.getTime();
    if (waited + delayMs > GITHUB_PATIENCE_MS) return undefined;
    // The consumer drops the job after its last delivery: that one must end with a result.
    if (this.isLastDelivery(deliveryCount, maxDeliver)) return undefined;
    const waits = (this.waits.get(jobId) ?? 0) + 1;
    this.waits.delete(jobId);
    // Jobs another replica finished are never done here: keep the most recent ones only.
    if (this.waits.size >= MAX_TRACKED_JOBS) this.waits.delete(this.waits.keys().next().value!);
    this.waits.set(jobId, waits);
    const message = error instanceof Error ? error.message : String(error);
    return new UnavailableError(
      `${message}; waiting ${Math.round(delayMs / 1000)} s as GitHub asked`,
      delayMs,
      {
        cause: error,
      },
    );
  }

  /** The job ended: forget it. */
  done(jobId: string): void {
    this.waits.delete(jobId);
  }
}
