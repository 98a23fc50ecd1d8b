import { expect } from "chai";
import type { Observation } from "../../src/domain/observation.js";
import {
  advanceTimeline,
  type PullRequestTimeline,
  type PullRequestTransition,
} from "../../src/domain/pull-request-timeline.js";
import { transition } from "./fixtures.js";

/** Applies transitions in order; returns the last timeline and every observation as kind=value. */
function play(events: PullRequestTransition[], start?: PullRequestTimeline) {
  let timeline = start;
  const observed: string[] = [];
  for (const e of events) {
    const step = advanceTimeline(timeline, e);
    timeline = step.timeline ?? undefined;
    observed.push(...step.observations.map(show));
  }
  return { timeline, observed };
}

const show = (o: Observation) => `${o.kind}${o.label ? `(${o.label})` : ""}[${o.queueType}]=${o.value}`;

describe("pull-request timeline", () => {
  it("measures wait, test and time in queue (NOT_READY excluded) and counts the restart and the conclusion", () => {
    const { timeline, observed } = play([
      transition(1, null, "NOT_READY", 0),
      transition(1, "NOT_READY", "PENDING", 5),
      transition(1, "PENDING", "TESTING", 7),
      transition(1, "TESTING", "PENDING", 9),
      transition(1, "PENDING", "TESTING", 10),
      transition(1, "TESTING", "TESTS_PASSED", 20),
      transition(1, "TESTS_PASSED", "MERGED", 21),
    ]);
    expect(timeline).to.equal(undefined);
    expect(observed).to.deep.equal([
      "pr_wait[main]=120",
      "pr_restart[main]=1",
      "pr_wait[main]=60",
      "pr_test[main]=600",
      "pr_conclusion(merged)[main]=1",
      "pr_time_in_queue[main]=960",
    ]);
  });

  it("leaves out the time a PR spends back in NOT_READY", () => {
    const { observed } = play([
      transition(2, null, "PENDING", 0),
      transition(2, "PENDING", "NOT_READY", 10),
      transition(2, "NOT_READY", "PENDING", 40),
      transition(2, "PENDING", "CANCELLED", 45),
    ]);
    expect(observed).to.deep.equal(["pr_conclusion(cancelled)[main]=1", "pr_time_in_queue[main]=900"]);
  });

  it("does not measure time in queue for a PR that never left NOT_READY", () => {
    const { observed } = play([
      transition(3, null, "NOT_READY", 0),
      transition(3, "NOT_READY", "CANCELLED", 30),
    ]);
    expect(observed).to.deep.equal(["pr_conclusion(cancelled)[main]=1"]);
  });

  it("changes nothing when the same event is delivered again", () => {
    const submitted = transition(4, null, "PENDING", 0);
    const testing = transition(4, "PENDING", "TESTING", 3);
    const first = play([submitted, testing]);
    const again = advanceTimeline(first.timeline, testing);
    expect(again).to.deep.equal({ timeline: first.timeline, changed: false, observations: [] });
  });

  it("counts an earlier entry's end without touching the current entry of the same PR number", () => {
    const current = play([
      transition(5, null, "PENDING", 30),
      transition(5, "PENDING", "TESTING", 31),
    ]).timeline;
    const stale = advanceTimeline(current, transition(5, "PENDING", "CANCELLED", 10));
    expect(stale.changed).to.equal(false);
    expect(stale.timeline).to.equal(current);
    expect(stale.observations.map(show)).to.deep.equal(["pr_conclusion(cancelled)[main]=1"]);
  });

  it("measures only what begins after a PR is first seen mid-way", () => {
    const { observed } = play([
      transition(6, "PENDING", "TESTING", 10),
      transition(6, "TESTING", "TESTS_PASSED", 25),
      transition(6, "TESTS_PASSED", "MERGED", 26),
    ]);
    // The wait before minute 10 and the time in queue are unknown: not reported rather than guessed.
    expect(observed).to.deep.equal(["pr_test[main]=900", "pr_conclusion(merged)[main]=1"]);
  });

  it("labels what a bisection decided as queue_type bisection", () => {
    const { observed } = play([
      transition(7, null, "PENDING", 0),
      transition(7, "PENDING", "PENDING_FAILURE", 1),
      transition(7, "PENDING_FAILURE", "FAILED", 4, { isBisection: true }),
    ]);
    expect(observed).to.deep.equal(["pr_conclusion(failed)[bisection]=1", "pr_time_in_queue[bisection]=240"]);
  });

  it("keys each observation by its event, so a redelivery stores it once", () => {
    const e = transition(8, "TESTING", "MERGED", 5);
    const ids = advanceTimeline(undefined, e).observations.map((o) => o.id);
    expect(ids).to.deep.equal([`${e.eventId}/pr_conclusion`]);
  });
});
