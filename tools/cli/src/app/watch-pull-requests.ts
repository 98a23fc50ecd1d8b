import { setTimeout as sleep } from "node:timers/promises";
import type { QueueKey, SubmittedPullRequest } from "../api/api-types.js";
import { ApiError, ServiceUnreachableError, type MainlineApi } from "../api/mainline-api.js";
import { CliError, EXIT } from "../cli-error.js";
import { formatRepositoryRef } from "../domain/repository-ref.js";
import { describePullRequestRef, type PullRequestRef } from "../domain/pull-request-ref.js";
import { isTerminal, stateDetail } from "../domain/pull-request-states.js";
import type { Frame, LiveDisplay } from "../output/live-display.js";

export interface WatchOptions {
  api: MainlineApi;
  queue: QueueKey;
  prs: readonly PullRequestRef[];
  /** Absent with --json: nothing is drawn, only the final states are returned. */
  display?: LiveDisplay | undefined;
  render?: (prs: readonly SubmittedPullRequest[], elapsedMs: number) => Frame;
  pollMs?: number;
  timeoutMs?: number;
  /**
   * How long the service may be unreachable or answer 502/503/504 (a gateway or a service behind it
   * restarting) before waiting gives up with EXIT.unreachable.
   */
  outageToleranceMs?: number;
  /** Where the watch says what it waits for while the service is away (stderr). */
  note?: (line: string) => void;
}

export const DEFAULT_OUTAGE_TOLERANCE_MS = 120_000;

/** An answer that says "not now" rather than "no": the gateway or a service behind it is (re)starting. */
function isOutage(error: unknown): error is ServiceUnreachableError | ApiError {
  return (
    error instanceof ServiceUnreachableError ||
    (error instanceof ApiError && [502, 503, 504].includes(error.status))
  );
}

/** Polls the PRs until every one is MERGED, FAILED or CANCELLED, drawing each poll; returns the final states. */
export async function watchPullRequests(options: WatchOptions): Promise<SubmittedPullRequest[]> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 60 * 60_000;
  const render = options.render ?? ((prs, elapsed) => pullRequestFrame(options.queue, prs, elapsed));
  const toleranceMs = options.outageToleranceMs ?? DEFAULT_OUTAGE_TOLERANCE_MS;
  const awaited = `PR ${options.prs.map(describePullRequestRef).join(", ")} in ${formatRepositoryRef(options.queue.repo)} → ${options.queue.targetBranch}`;
  const note = (line: string) => (options.display ? options.display.note(line) : options.note?.(line));
  let unreachableSince: number | undefined;
  const lastSeen = new Map<number, SubmittedPullRequest>();
  for (;;) {
    let prs: SubmittedPullRequest[];
    try {
      prs = await Promise.all(
        options.prs.map(async (pr, index) => {
          try {
            const found = await options.api.post<SubmittedPullRequest>("/getSubmittedPullRequest", {
              ...options.queue,
              pr,
            });
            lastSeen.set(index, found);
            return found;
          } catch (error) {
            // A PR that just left the queue can be missing for a moment while its final record is written.
            const known = lastSeen.get(index);
            if (known && error instanceof ApiError && error.status === 404) return known;
            throw error;
          }
        }),
      );
      if (unreachableSince !== undefined) note(`Mainline answers again; still waiting for ${awaited}`);
      unreachableSince = undefined;
    } catch (error) {
      if (!isOutage(error)) throw error;
      const seconds = Math.round(toleranceMs / 1000);
      if (unreachableSince === undefined) {
        unreachableSince = Date.now();
        note(`waiting for ${awaited}: ${error.message}; retrying for up to ${seconds} s`);
      }
      if (Date.now() - unreachableSince > toleranceMs)
        throw new CliError(
          `gave up waiting for ${awaited} after ${seconds} s of retrying: ${error.message}`,
          EXIT.unreachable,
        );
      await sleep(Math.max(options.pollMs ?? 500, 1000));
      continue;
    }
    options.display?.show(render(prs, Date.now() - started));
    if (prs.every((pr) => isTerminal(pr.state))) {
      options.display?.finish();
      return prs;
    }
    if (Date.now() - started > timeoutMs) {
      options.display?.finish();
      const open = prs.filter((pr) => !isTerminal(pr.state)).map((pr) => `#${pr.prNumber} ${pr.state}`);
      throw new CliError(
        `stopped waiting after ${Math.round(timeoutMs / 60_000)} min; still open: ${open.join(", ")}`,
        EXIT.failed,
      );
    }
    await sleep(options.pollMs ?? 500);
  }
}

/** The default picture: a title with counts, and one row per PR. */
export function pullRequestFrame(
  queue: QueueKey,
  prs: readonly SubmittedPullRequest[],
  elapsedMs: number,
): Frame {
  const count = (state: string) => prs.filter((pr) => pr.state === state).length;
  const open = prs.filter((pr) => !isTerminal(pr.state)).length;
  const title =
    `${formatRepositoryRef(queue.repo)} → ${queue.targetBranch}  ${formatElapsed(elapsedMs)}  ` +
    `merged ${count("MERGED")} · failed ${count("FAILED")} · cancelled ${count("CANCELLED")} · open ${open}`;
  return { title, rows: prs.map((pr) => ({ key: String(pr.prNumber), line: pullRequestRow(pr) })) };
}

export function pullRequestRow(pr: SubmittedPullRequest): string {
  const title = pr.prTitle.length > 40 ? `${pr.prTitle.slice(0, 39)}…` : pr.prTitle;
  const detail = stateDetail(pr);
  return `${`#${pr.prNumber}`.padEnd(6)}${pr.state.padEnd(16)}${title.padEnd(42)}${detail}`.trimEnd();
}

export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60
    ? `${seconds}s`
    : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}
