import {
  isTerminalPrState,
  type LivePullRequestState,
  lowerCaseWord,
  type PullRequestState,
  runKindOf,
  type TerminalPullRequestState,
} from "@mainline/contract";
import { ObservationList, seconds, type Observation } from "./observation.js";
import type { QueueIdentity } from "./queue-identity.js";

export type LiveState = LivePullRequestState;
export type TerminalState = TerminalPullRequestState;
export type { PullRequestState };

export const isTerminal = isTerminalPrState;

/** A PR changed state in a queue (the coordinator's PullRequestLifecycleEvent). */
export interface PullRequestTransition {
  eventId: string;
  queue: QueueIdentity;
  pr: number;
  /** Null when the PR was just submitted. */
  from: PullRequestState | null;
  to: PullRequestState;
  at: number;
  isBisection: boolean;
}

/**
 * What the metrics remember of a PR still in a queue: its state for the gauges, and the start times the
 * duration histograms need when it moves on. Kept in the store so that a PR that entered before a restart
 * of the metrics service is still measured when it leaves after it.
 */
export interface PullRequestTimeline {
  queue: QueueIdentity;
  pr: number;
  state: LiveState;
  stateSince: number;
  /** Start of the current stretch outside NOT_READY (time in queue excludes NOT_READY). */
  queuedSince: number | null;
  /** Time in queue of earlier stretches. */
  queuedMs: number;
  /** Whether the PR ever left NOT_READY: a PR cancelled while waiting for mergeability never was in the queue. */
  everQueued: boolean;
  /** False when part of the PR's history was not seen (it is then not measured for time in queue). */
  complete: boolean;
  waitingSince: number | null;
  testingSince: number | null;
  /** The last event applied, so that the same event delivered again changes nothing. */
  lastEventId: string;
}

export interface TimelineStep {
  /** The timeline after the event; null once the PR left the queue. */
  timeline: PullRequestTimeline | null;
  /** False when the event leaves the remembered timeline as it was. */
  changed: boolean;
  observations: Observation[];
}

// A test ends with a result; TESTING -> PENDING (a restart) or CANCELLED abandons it unmeasured.
const TEST_RESULTS: ReadonlySet<PullRequestState> = new Set([
  "TESTS_PASSED",
  "PENDING_FAILURE",
  "FAILED",
  "MERGED",
]);

/**
 * Applies one transition. Counts (conclusions, restarts) come from the event alone; durations need the
 * start the timeline remembers and are left out when it is unknown rather than guessed.
 */
export function advanceTimeline(
  current: PullRequestTimeline | undefined,
  event: PullRequestTransition,
): TimelineStep {
  if (current?.lastEventId === event.eventId) return { timeline: current, changed: false, observations: [] };
  const queueType = runKindOf(event.isBisection);
  const observe = new ObservationList(event.eventId, event.queue, event.at);
  if (isTerminal(event.to)) observe.add("pr_conclusion", queueType, 1, lowerCaseWord(event.to));
  if (event.from === "TESTING" && event.to === "PENDING") observe.add("pr_restart", queueType, 1);

  // An event that neither continues the remembered state nor is newer than it belongs to an earlier entry of
  // the same PR number (cancelled and submitted again), or to a state the coordinator's snapshot already passed.
  if (current !== undefined && event.from !== current.state && event.at < current.stateSince) {
    return { timeline: current, changed: false, observations: observe.items };
  }
  const before = event.from === null || current === undefined ? startOf(event) : current;

  if (event.to === "TESTING" && before.state !== "TESTING" && before.waitingSince !== null) {
    observe.add("pr_wait", queueType, seconds(event.at - before.waitingSince));
  }
  if (before.state === "TESTING" && TEST_RESULTS.has(event.to) && before.testingSince !== null) {
    observe.add("pr_test", queueType, seconds(event.at - before.testingSince));
  }

  let { queuedSince, queuedMs } = before;
  const leavesQueue = event.to === "NOT_READY" || isTerminal(event.to);
  if (leavesQueue && queuedSince !== null) {
    queuedMs += event.at - queuedSince;
    queuedSince = null;
  } else if (!leavesQueue && queuedSince === null) {
    queuedSince = event.at;
  }
  const everQueued = before.everQueued || queuedSince !== null;

  if (isTerminal(event.to)) {
    if (before.complete && everQueued) observe.add("pr_time_in_queue", queueType, seconds(queuedMs));
    return { timeline: null, changed: current !== undefined, observations: observe.items };
  }
  const to = event.to;
  return {
    timeline: {
      queue: event.queue,
      pr: event.pr,
      state: to,
      stateSince: event.at,
      queuedSince,
      queuedMs,
      everQueued,
      complete: before.complete,
      waitingSince: to !== "PENDING" ? null : before.state === "PENDING" ? before.waitingSince : event.at,
      testingSince: to !== "TESTING" ? null : before.state === "TESTING" ? before.testingSince : event.at,
      lastEventId: event.eventId,
    },
    changed: true,
    observations: observe.items,
  };
}

/**
 * The timeline an event starts from when none is remembered: complete for a submission; otherwise the PR's
 * past was not seen, and only what begins with this event will be measured.
 */
function startOf(event: PullRequestTransition): PullRequestTimeline {
  const submitted = event.from === null;
  const from = event.from !== null && !isTerminal(event.from) ? event.from : "NOT_READY";
  return {
    queue: event.queue,
    pr: event.pr,
    state: from,
    stateSince: event.at,
    queuedSince: null,
    queuedMs: 0,
    // An unseen past outside NOT_READY: the PR was in the queue, for a time not known.
    everQueued: !submitted && from !== "NOT_READY",
    complete: submitted,
    waitingSince: null,
    testingSince: null,
    lastEventId: "",
  };
}
