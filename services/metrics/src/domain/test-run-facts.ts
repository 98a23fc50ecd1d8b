import { lowerCaseWord, RUN_OUTCOMES, wireRunOutcome, type WireRunOutcome } from "@mainline/contract";
import { ObservationList, seconds, type Observation, type QueueType } from "./observation.js";
import type { QueueIdentity } from "./queue-identity.js";

/** The `outcome` label: the contract's run outcomes as the wire spells them, in lower case, and an abandoned run. */
export type TestRunOutcome = Lowercase<WireRunOutcome> | "cancelled";
export const TEST_RUN_OUTCOMES: readonly TestRunOutcome[] = [
  ...RUN_OUTCOMES.map((outcome) => lowerCaseWord(wireRunOutcome(outcome))),
  "cancelled",
];

/** A test run started, finished, was abandoned, or had its result reused (the coordinator's TestRunLifecycleEvent). */
export interface TestRunFact {
  eventId: string;
  type: "STARTED" | "FINISHED" | "CANCELLED" | "REUSED";
  queue: QueueIdentity;
  runId: string;
  kind: QueueType;
  /** STARTED: the PRs under test (the batch); empty when the publisher did not say. */
  testedPrs: number[];
  /** FINISHED: how it ended. */
  outcome: TestRunOutcome | null;
  startedAt: number | null;
  finishedAt: number | null;
  at: number;
}

/** A run in progress: one testing slot taken (mq_testing_slots_active). */
export interface ActiveTestRun {
  runId: string;
  queue: QueueIdentity;
  kind: QueueType;
  startedAt: number;
}

export interface TestRunStep {
  /** The run as it now stands: active, null when it no longer takes a slot, undefined when untouched. */
  run: ActiveTestRun | null | undefined;
  observations: Observation[];
}

/**
 * Applies one test-run fact. The kind recorded at the start wins over the one of a later event, which may
 * not know it (a run cancelled in the step that forgot it). A run ends once, and only after its start was
 * counted: an end for a run not in progress (a result that arrived after the run was cancelled, a cancellation
 * of a run that already ended) counts nothing, so runs finished never exceed runs started.
 */
export function applyTestRunFact(active: ActiveTestRun | undefined, fact: TestRunFact): TestRunStep {
  const observe = new ObservationList(fact.eventId, fact.queue, fact.at);
  const kind = active?.kind ?? fact.kind;
  if ((fact.type === "FINISHED" || fact.type === "CANCELLED") && active === undefined)
    return { run: undefined, observations: [] };
  switch (fact.type) {
    case "STARTED": {
      observe.add("run_started", fact.kind, 1);
      if (fact.kind === "main" && fact.testedPrs.length > 0) {
        observe.add("batch_size", "main", fact.testedPrs.length);
      }
      const run = {
        runId: fact.runId,
        queue: fact.queue,
        kind: fact.kind,
        startedAt: fact.startedAt ?? fact.at,
      };
      return { run, observations: observe.items };
    }
    case "FINISHED": {
      observe.add("run_finished", kind, 1, fact.outcome ?? "error");
      const startedAt = fact.startedAt ?? active?.startedAt ?? null;
      if (startedAt !== null)
        observe.add("run_duration", kind, seconds((fact.finishedAt ?? fact.at) - startedAt));
      return { run: null, observations: observe.items };
    }
    case "CANCELLED":
      observe.add("run_finished", kind, 1, "cancelled");
      return { run: null, observations: observe.items };
    case "REUSED":
      // The earlier run's slot is long free; this only counts a run the bisection did not need.
      observe.add("bisection_reuse", "bisection", 1);
      return { run: undefined, observations: observe.items };
  }
}
