import { expect } from "chai";
import {
  createPlannerState,
  plan,
  type Decision,
  type PlannerOptions,
  type PlannerState,
  type PlanningStep,
  type PrState,
  type QueueEvent,
  type TestRun,
} from "../../src/domain/index.js";
import {
  parseImpactedTargets,
  parsePriority,
  parseQueueSettings,
  parseSettingsPatch,
} from "../../src/api/command-parser.js";

/**
 * A readable driver for scenario tables. PRs are capital letters (A = #1, B = #2, ...). Rows
 * are [event, expected PR states, expected decisions]; decisions are written as
 *   "test CD on AB" (main run of C, D on top of A, B), "bisect C on AB", "merge AB",
 *   "merge* ABC" (optimistic), "cancel CD".
 * Events: "submit A", "submit A urgent", "submit A nobatch", "targets A frontend,backend",
 * "targets A ALL", "pass AB" / "fail AB" / "timeout AB" (the running run testing exactly A, B),
 * "conflict AB B", "merged A" (the merge containing A), "partly-merged A AB" (the merge containing A landed
 * only A, B), "target-moved", "cancel A",
 * "restart A", "priority A high" (change a queued PR's priority), "close A", "push A" (new head sha), "wait 5" (minutes), "set {json}".
 */
export type Row = [event: string, states: Partial<Record<string, PrState>>, decisions?: string[]];

export const letter = (n: number): string => String.fromCharCode(64 + n);
export const num = (l: string): number => l.charCodeAt(0) - 64;
const prsOf = (s: string): number[] => [...s].map(num);
const lettersOf = (prs: readonly number[]): string => prs.map(letter).join("");

export function describeDecision(d: Decision, runs: Readonly<Record<string, TestRun>> = {}): string {
  switch (d.type) {
    case "START_TEST_RUN": {
      const verb = d.kind === "main" ? "test" : "bisect";
      return d.dependentPrs.length === 0
        ? `${verb} ${lettersOf(d.prs)}`
        : `${verb} ${lettersOf(d.prs)} on ${lettersOf(d.dependentPrs)}`;
    }
    case "CANCEL_TEST_RUN":
      return `cancel ${runs[d.runId] === undefined ? d.runId : lettersOf((runs[d.runId] as TestRun).prs)}`;
    case "MERGE":
      return `merge${d.optimistic ? "*" : ""} ${lettersOf(d.prs)}`;
  }
}

export class Scenario {
  state: PlannerState;
  now = 0;
  readonly finalStates = new Map<number, PrState>();
  /** Every state change of each PR with its reason, as its history shows it ("PENDING CLEARED_BY_EARLIER_BISECTION"). */
  readonly changes = new Map<number, string[]>();
  readonly started: Decision[] = [];
  private readonly shas = new Map<number, number>();
  last: PlanningStep | null = null;

  constructor(
    settings: Record<string, unknown> = {},
    readonly options?: PlannerOptions,
  ) {
    this.state = createPlannerState("main", parseQueueSettings(settings));
  }

  facts(n: number) {
    return {
      headBranch: `feature-${n}`,
      headSha: `sha-${n}-${this.shas.get(n) ?? 0}`,
      title: `PR ${n}`,
      author: "dev",
      baseBranch: "main",
      open: true,
    };
  }

  private previousRuns: Record<string, TestRun> = {};

  apply(event: QueueEvent): PlanningStep {
    this.previousRuns = this.state.runs;
    const step = plan(this.state, event, this.now, this.options);
    this.state = step.state;
    this.last = step;
    for (const n of step.notices) {
      if (n.type !== "PR_STATE_CHANGED") continue;
      this.finalStates.set(n.pr, n.to);
      this.changes.set(n.pr, [...(this.changes.get(n.pr) ?? []), `${n.to} ${n.reason}`]);
    }
    for (const d of step.decisions) if (d.type === "START_TEST_RUN") this.started.push(d);
    return step;
  }

  stateOf(l: string): PrState | undefined {
    return this.finalStates.get(num(l));
  }

  /** The state changes of `l` so far, each as "STATE REASON", oldest first. */
  changesOf(l: string): string[] {
    return this.changes.get(num(l)) ?? [];
  }

  runningRunFor(prs: string): string {
    const wanted = prsOf(prs).join(",");
    const run = Object.values(this.state.runs).find(
      (r) => r.status === "RUNNING" && r.prs.join(",") === wanted,
    );
    if (run === undefined) {
      const running = Object.values(this.state.runs)
        .filter((r) => r.status === "RUNNING")
        .map((r) => lettersOf(r.prs));
      throw new Error(`no running run tests exactly ${prs}; running: ${running.join(" ") || "none"}`);
    }
    return run.id;
  }

  do(line: string): PlanningStep {
    const [verb = "", arg = "", extra = ""] = line.split(" ");
    switch (verb) {
      case "submit": {
        const n = num(arg);
        return this.apply({
          type: "PR_SUBMITTED",
          pr: n,
          facts: this.facts(n),
          ...(extra === "nobatch"
            ? { noBatch: true }
            : extra !== ""
              ? { priority: parsePriority(extra) }
              : {}),
        });
      }
      case "targets":
        return this.apply({
          type: "IMPACTED_TARGETS_SET",
          pr: num(arg),
          targets: parseImpactedTargets(
            this.facts(num(arg)).headSha,
            extra === "ALL" ? "ALL" : extra === "" ? [] : extra.split(","),
          ),
        });
      case "pass":
      case "fail":
      case "timeout":
        return this.apply({
          type: "TEST_RUN_FINISHED",
          runId: this.runningRunFor(arg),
          outcome: verb === "pass" ? "PASSED" : verb === "fail" ? "FAILED" : "TIMED_OUT",
        });
      case "conflict":
        return this.apply({
          type: "TEST_RUN_FINISHED",
          runId: this.runningRunFor(arg),
          outcome: "MERGE_CONFLICT",
          conflictingPr: num(extra),
        });
      case "merged": {
        const merge = Object.values(this.state.merges).find((m) => m.prs.includes(num(arg)));
        if (merge === undefined) throw new Error(`no merge in flight contains ${arg}`);
        return this.apply({ type: "MERGE_FINISHED", mergeId: merge.id, outcome: "MERGED" });
      }
      case "partly-merged": {
        // "partly-merged A AB": the merge containing A landed only A, B (a merge through GitHub refused midway).
        const merge = Object.values(this.state.merges).find((m) => m.prs.includes(num(arg)));
        if (merge === undefined) throw new Error(`no merge in flight contains ${arg}`);
        return this.apply({
          type: "MERGE_FINISHED",
          mergeId: merge.id,
          outcome: "TARGET_MOVED",
          mergedPrs: prsOf(extra),
        });
      }
      case "target-moved":
        return this.apply({ type: "TARGET_BRANCH_MOVED" });
      case "cancel":
        return this.apply({ type: "PR_CANCELLED", pr: num(arg) });
      case "restart":
        return this.apply({ type: "PR_RESTART_REQUESTED", pr: num(arg) });
      case "priority":
        return this.apply({
          type: "PR_PRIORITY_CHANGED",
          pr: num(arg),
          priority: parsePriority(/^\d+$/.test(extra) ? Number(extra) : extra),
          by: "tester",
        });
      case "close":
        return this.apply({
          type: "PR_FACTS_UPDATED",
          pr: num(arg),
          facts: { ...this.facts(num(arg)), open: false },
        });
      case "push": {
        const n = num(arg);
        this.shas.set(n, (this.shas.get(n) ?? 0) + 1);
        return this.apply({ type: "PR_FACTS_UPDATED", pr: n, facts: this.facts(n) });
      }
      case "wait":
        this.now += Number(arg) * 60_000;
        return this.apply({ type: "TIME_PASSED" });
      case "set":
        return this.apply({
          type: "SETTINGS_UPDATED",
          patch: parseSettingsPatch(JSON.parse(line.slice(4)) as Record<string, unknown>),
        });
      default:
        throw new Error(`unknown scenario verb in "${line}"`);
    }
  }

  /** Plays the rows, checking the listed PR states and (when given) the exact decisions. */
  play(rows: readonly Row[]): this {
    for (const [event, states, decisions] of rows) {
      const step = this.do(event);
      for (const [l, expected] of Object.entries(states)) {
        expect(this.stateOf(l), `state of ${l} after "${event}"`).to.equal(expected);
      }
      if (decisions !== undefined) {
        const runs = { ...this.previousRuns, ...this.state.runs };
        expect(
          step.decisions.map((dec) => describeDecision(dec, runs)),
          `decisions after "${event}"`,
        ).to.deep.equal(decisions);
      }
    }
    return this;
  }

  mainRunsStarted(): number {
    return this.started.filter((d) => d.type === "START_TEST_RUN" && d.kind === "main").length;
  }
  runsStarted(): number {
    return this.started.length;
  }
}
