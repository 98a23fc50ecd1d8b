import { type QueueMode } from "@mainline/contract";
import { AlreadyExistsError, FailedPreconditionError, NotFoundError } from "@mainline/kit/errors/index";
import type { Draft } from "./draft.js";
import type { QueueEvent } from "./events.js";
import { sameTargets, type ImpactedTargets } from "./impacted-targets.js";
import { admitAllReady, admitIfReady, endPr, sendBackToNotReady } from "./membership.js";
import { finishMerge } from "./merging.js";
import { DEFAULT_PRIORITY } from "./priority.js";
import { changePriority } from "./priority-change.js";
import type { PullRequestEntry, PullRequestFacts } from "./pull-request.js";
import type { QueueSettingsPatch } from "./queue-settings.js";
import { acceptsSubmissions, type QueueState } from "./queue-state.js";
import { restartBatch, restartEverything } from "./restarts.js";
import { queuedStackOf, refuseStack, retargetedAfterLanding } from "./stack.js";
import { releaseTargetHold } from "./target-hold.js";
import { finishTestRun } from "./test-results.js";

/**
 * Applies one input to the working copy. Commands that cannot be honoured throw a typed error
 * before anything is changed for the caller (the draft is discarded).
 */
export function applyEvent(d: Draft, event: QueueEvent): void {
  switch (event.type) {
    case "PR_SUBMITTED":
      return submit(d, event);
    case "PR_CANCELLED": {
      const entry = queuedPr(d, event.pr);
      refuseWhileMerging(entry, "cancelled");
      return endPr(d, entry.number, "CANCELLED", "CANCELLED_BY_USER");
    }
    case "PR_RESTART_REQUESTED": {
      const entry = queuedPr(d, event.pr);
      refuseWhileMerging(entry, "restarted");
      if (entry.batchId !== null) restartBatch(d, entry.batchId, "RESTART_REQUESTED");
      return;
    }
    case "PR_PRIORITY_CHANGED":
      // A stack moves as one block (issue 28): its queued PRs change together, bottom first.
      for (const n of queuedStackOf(d.state.prs, queuedPr(d, event.pr).number))
        changePriority(d, queuedPr(d, n), event.priority, event.by ?? null);
      return;
    case "IMPACTED_TARGETS_SET":
      return setImpactedTargets(d, event.pr, event.targets);
    case "PR_FACTS_UPDATED":
      return updateFacts(d, event.pr, event.facts);
    case "SETTINGS_UPDATED":
      return updateSettings(d, event.patch);
    case "TEST_RUN_FINISHED":
      return finishTestRun(d, event.runId, event.outcome, event.conflictingPr, {
        tests: event.tests,
        knowledge: event.knowledge,
        knowledgeUnavailable: event.knowledgeUnavailable,
      });
    case "TARGET_TEST_PASSED":
      if (d.state.targetBroken?.test.id === event.testId) releaseTargetHold(d, "TEST_PASSED_ON_TARGET");
      return;
    case "MERGE_FINISHED":
      return finishMerge(d, event.mergeId, event.outcome, event.mergedPrs);
    case "TARGET_BRANCH_MOVED":
      // A fix may have landed: the next run tells, and holds the queue again if not.
      releaseTargetHold(d, "TARGET_MOVED");
      return restartEverything(d, "TARGET_BRANCH_MOVED");
    case "TIME_PASSED":
      return;
  }
}

function queuedPr(d: Draft, n: number): Readonly<PullRequestEntry> {
  const entry = d.pr(n);
  if (entry === undefined)
    throw new NotFoundError(`pull request ${n} is not in the queue for ${d.state.branch}`);
  return entry;
}

function refuseWhileMerging(entry: Readonly<PullRequestEntry>, verb: string): void {
  if (entry.mergeId !== null) {
    throw new FailedPreconditionError(`pull request ${entry.number} is being merged and cannot be ${verb}`);
  }
}

function submit(d: Draft, event: Extract<QueueEvent, { type: "PR_SUBMITTED" }>): void {
  const priority = event.priority ?? DEFAULT_PRIORITY;
  if (!acceptsSubmissions(d.state.queueState)) {
    const why = d.state.queueState === "DRAINING" ? "is draining" : "is switching modes";
    throw new FailedPreconditionError(
      `the queue for ${d.state.branch} ${why} and accepts no new pull requests`,
    );
  }
  if (d.pr(event.pr) !== undefined)
    throw new AlreadyExistsError(`pull request ${event.pr} is already in the queue for ${d.state.branch}`);
  const below = event.stack?.below ?? [];
  refuseStack(d.state.settings, event.pr, below);
  // The PRs below first, bottom up, in the same step: the stack is placed (and batched) as one block.
  if (event.stack?.include === true) {
    for (const member of below) {
      if (d.pr(member.pr) !== undefined) continue;
      submitOne(d, { type: "PR_SUBMITTED", priority, ...member });
    }
  }
  submitOne(d, event);
}

function submitOne(d: Draft, event: Extract<QueueEvent, { type: "PR_SUBMITTED" }>): void {
  const n = event.pr;
  const priority = event.priority ?? DEFAULT_PRIORITY;
  const facts = event.facts === undefined ? null : { ...event.facts };
  const targets = event.impactedTargets ?? null;
  if (facts !== null && !facts.open) throw new FailedPreconditionError(`pull request ${n} is closed`);
  d.putPr({
    number: n,
    id: d.nextId("entry"),
    submittedAt: d.now,
    priority,
    noBatch: event.noBatch ?? false,
    facts,
    impactedTargets: targets,
    state: "NOT_READY",
    stateChangedAt: d.now,
    history: [],
    enqueuedAt: null,
    batchId: null,
    startedTesting: false,
    mergeId: null,
  });
  d.notify({
    type: "PR_STATE_CHANGED",
    pr: n,
    entryId: d.pr(n)?.id ?? "",
    from: null,
    to: "NOT_READY",
    reason: "SUBMITTED",
    at: d.now,
    runId: null,
    batched: false,
    isBisection: false,
    finalEntry: null,
  });
  d.editPr(n).history.push({ at: d.now, from: null, to: "NOT_READY", reason: "SUBMITTED", runId: null });
  admitIfReady(d, n);
}

/** Targets for PRs the planner does not hold are the shell's to keep (they come with the submit). */
function setImpactedTargets(d: Draft, n: number, parsed: ImpactedTargets): void {
  const entry = d.pr(n);
  if (entry === undefined || entry.mergeId !== null) return;
  const previous = entry.impactedTargets;
  const queued = entry.state !== "NOT_READY";
  if (queued && entry.facts !== null && parsed.sha !== entry.facts.headSha) return;
  if (previous !== null && previous.sha === parsed.sha && sameTargets(previous.targets, parsed.targets))
    return;
  d.editPr(entry.number).impactedTargets = parsed;
  if (queued && d.state.settings.mode === "PARALLEL") sendBackToNotReady(d, entry.number, "TARGETS_CHANGED");
  else admitIfReady(d, entry.number);
}

function updateFacts(d: Draft, n: number, input: PullRequestFacts): void {
  const facts = { ...input };
  const entry = d.pr(n);
  if (entry === undefined) return;
  if (entry.mergeId !== null) {
    // The tested commits are what lands; the merge result settles this PR.
    return;
  }
  const previous = entry.facts;
  d.editPr(entry.number).facts = facts;
  if (!facts.open) return endPr(d, entry.number, "CANCELLED", "PR_CLOSED");
  if (entry.state === "NOT_READY" || previous === null) return admitIfReady(d, entry.number);
  if (previous.headSha !== facts.headSha) return sendBackToNotReady(d, entry.number, "HEAD_CHANGED");
  if (previous.baseBranch !== facts.baseBranch && !retargetedAfterLanding(d, previous, facts))
    return sendBackToNotReady(d, entry.number, "BASE_BRANCH_CHANGED");
}

function updateSettings(d: Draft, patch: QueueSettingsPatch): void {
  const { state, mode, ...rest } = patch;
  const before = d.state.settings;
  d.state.settings = { ...before, ...rest };
  if (rest.holdOnBrokenTarget === false) releaseTargetHold(d, "SETTING_OFF");
  // An operator's resume ends a hold for a broken target, as it ends a pause.
  if (state === "RUNNING") releaseTargetHold(d, "RESUMED");
  if (mode !== undefined) changeMode(d, mode);
  if (state !== undefined) {
    if (d.state.switching !== null) d.state.switching = { ...d.state.switching, resumeState: state };
    else setQueueState(d, state);
  }
}

/**
 * A mode change with PRs in the queue goes through SWITCHING_MODES (like DRAINING) and applies
 * once the queue is empty; asking for the current mode again calls the switch off.
 */
function changeMode(d: Draft, mode: QueueMode): void {
  const switching = d.state.switching;
  if (switching !== null) {
    if (mode === d.state.settings.mode) {
      d.state.switching = null;
      setQueueState(d, switching.resumeState);
      admitAllReady(d);
    } else {
      d.state.switching = { ...switching, toMode: mode };
    }
    return;
  }
  if (mode === d.state.settings.mode) return;
  if (d.state.order.length === 0 && Object.keys(d.state.merges).length === 0) {
    applyMode(d, mode);
    return;
  }
  const current = d.state.queueState;
  d.state.switching = { toMode: mode, resumeState: current === "SWITCHING_MODES" ? "RUNNING" : current };
  setQueueState(d, "SWITCHING_MODES");
}

export function applyMode(d: Draft, mode: QueueMode): void {
  const from = d.state.settings.mode;
  d.state.settings = { ...d.state.settings, mode };
  d.notify({ type: "QUEUE_MODE_CHANGED", from, to: mode, at: d.now });
  admitAllReady(d);
}

export function setQueueState(d: Draft, to: QueueState): void {
  const from = d.state.queueState;
  if (from === to) return;
  d.state.queueState = to;
  d.notify({ type: "QUEUE_STATE_CHANGED", from, to, at: d.now });
}

/** Completes a mode switch once nothing is queued or merging. */
export function finishModeSwitch(d: Draft): boolean {
  const switching = d.state.switching;
  if (switching === null || d.state.order.length > 0 || Object.keys(d.state.merges).length > 0) return false;
  d.state.switching = null;
  setQueueState(d, switching.resumeState);
  applyMode(d, switching.toMode);
  return true;
}
