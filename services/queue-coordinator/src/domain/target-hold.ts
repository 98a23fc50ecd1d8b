import type { Draft } from "./draft.js";
import { isProgressing } from "./queue-state.js";
import type { TargetBroken, TargetRecovery } from "./target-broken.js";
import type { FailedTest } from "./test-knowledge.js";

export type { TargetBroken, TargetRecovery };

/** Whether the queue may start runs (main, bisection, probes): not paused, and the target not broken. */
export function startsRuns(d: Draft): boolean {
  return isProgressing(d.state.queueState) && d.state.targetBroken == null;
}

/** The reason getQueue, the CLI and the web page show: "target broken: test X failing on main since …". */
export function targetBrokenReason(branch: string, hold: Readonly<TargetBroken>): string {
  return `target broken: test ${hold.test.name || hold.test.id} failing on ${branch} since ${new Date(hold.since).toISOString()}`;
}

export function holdForBrokenTarget(d: Draft, test: FailedTest, since: number, runId: string): void {
  if (d.state.targetBroken != null) return;
  const hold: TargetBroken = { test: { ...test }, since, at: d.now, runId };
  d.state.targetBroken = hold;
  d.notify({ type: "TARGET_BROKEN", ...hold, reason: targetBrokenReason(d.state.branch, hold) });
}

export function releaseTargetHold(d: Draft, why: TargetRecovery): void {
  const hold = d.state.targetBroken;
  if (hold == null) return;
  d.state.targetBroken = null;
  d.notify({ type: "TARGET_RECOVERED", test: hold.test, since: hold.since, why, at: d.now });
}
