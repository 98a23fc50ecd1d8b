import type { RunCancellationBoard } from "../bus/run-cancellation-board.js";

/** A run this replica carries out, followed until it ends. */
export interface FollowedRun {
  /** Fires when the planner cancels the run (already fired when it was cancelled before it began). */
  readonly signal: AbortSignal;
  release(): void;
}

/**
 * The cancellation signals of the runs in flight on this replica. The board's watch calls `cancel`
 * for every cancellation any replica posts; only a run followed here is aborted.
 */
export class RunCancellations {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly board: RunCancellationBoard) {}

  cancel(testRunId: string): void {
    this.running.get(testRunId)?.abort();
  }

  async follow(testRunId: string): Promise<FollowedRun> {
    const controller = new AbortController();
    // Registered before the board is read, so a cancellation posted in between is not missed.
    this.running.set(testRunId, controller);
    try {
      if (await this.board.isCancelled(testRunId)) controller.abort();
    } catch (error) {
      this.forget(testRunId, controller);
      throw error;
    }
    return { signal: controller.signal, release: () => this.forget(testRunId, controller) };
  }

  private forget(testRunId: string, controller: AbortController): void {
    if (this.running.get(testRunId) === controller) this.running.delete(testRunId);
  }
}
