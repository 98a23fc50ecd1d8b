import type { QueueIdentity } from "./queue-identity.js";

/** The one-hour windows of the catalogue: a metric counts what happened in the last hour. */
export const WINDOW_MS = 60 * 60_000;

/**
 * `main` for the queue of PRs and its runs; `bisection` for the search for a failed batch's culprits
 * (compat-notes: the `queue_type` label).
 */
import type { RunKind } from "@mainline/contract";

export type QueueType = RunKind;

/** What a windowed metric is made of. Counts have value 1; durations are in seconds; sizes in PRs. */
export type ObservationKind =
  | "pr_conclusion"
  | "pr_restart"
  | "pr_wait"
  | "pr_test"
  | "pr_time_in_queue"
  | "batch_size"
  | "run_started"
  | "run_finished"
  | "run_duration"
  | "bisection_reuse";

/**
 * One fact with a time, derived from one lifecycle event. The id is the event's id plus the kind, so the
 * same event delivered twice yields the same observation and is stored once.
 */
export interface Observation {
  id: string;
  queue: QueueIdentity;
  queueType: QueueType;
  kind: ObservationKind;
  /** The value of the extra label (`conclusion` or `outcome`), when the kind has one. */
  label: string | null;
  value: number;
  /** Epoch ms of the event. */
  at: number;
}

export function isInWindow(observation: Pick<Observation, "at">, now: number): boolean {
  return observation.at > now - WINDOW_MS;
}

/** Builds the observations of one event, each keyed by the event id and its kind. */
export class ObservationList {
  readonly items: Observation[] = [];

  constructor(
    private readonly eventId: string,
    private readonly queue: QueueIdentity,
    private readonly at: number,
  ) {}

  add(kind: ObservationKind, queueType: QueueType, value: number, label: string | null = null): void {
    this.items.push({
      id: `${this.eventId}/${kind}`,
      queue: this.queue,
      queueType,
      kind,
      label,
      value,
      at: this.at,
    });
  }
}

export const seconds = (ms: number): number => Math.max(0, ms) / 1000;
