import { PRIORITY_VALUES } from "@mainline/contract";
import {
  BatchingMode,
  BisectionMode,
  DirectMergeMode,
  GitHubMergeability,
  MergeMethod,
  OptimizationMode,
  PullRequestState,
  QueueMode,
  QueueState,
  type EnqueuedPullRequest,
  type Queue,
  type SubmittedPullRequest,
} from "@mainline/proto/queue";
import {
  batchPlacement,
  effectiveBisectionConcurrency,
  effectiveOptimizationMode,
  MAX_STACK_SIZE,
  queueReadiness,
  runTesting,
  stackViews,
  targetBrokenReason,
  type PlannerState,
  type Placement,
  type PullRequestEntry,
  type StackView,
} from "../domain/index.js";
import { prStateToProto } from "../app/outbox.js";
import type { QueueDocument } from "../store/queue-repository.js";
import { globalId, incarnation } from "../app/run-ids.js";
import { testAwareSwitchesToProto } from "./test-aware-switches.js";

export function queueToProto(doc: QueueDocument, withPullRequests = true): Queue {
  const p = doc.planner;
  const s = p.settings;
  const suffix = incarnation(doc._id, doc.createdAt);
  return {
    ref: { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch },
    state: QueueState[p.queueState],
    mode: QueueMode[s.mode],
    concurrency: s.concurrency,
    testingTimeoutMinutes: s.testingTimeoutMinutes,
    canOptimisticallyMerge: s.canOptimisticallyMerge,
    pendingFailureDepth: s.pendingFailureDepth,
    batch: s.batch,
    batchingMaxWaitTimeMinutes: s.batchingMaxWaitTimeMinutes,
    batchingMinSize: s.batchingMinSize,
    // Absent in settings stored before it existed.
    batchingMode: BatchingMode[s.batchingMode ?? "FIXED"],
    bisectionConcurrency: effectiveBisectionConcurrency(s),
    bisectionMode: BisectionMode[s.bisectionMode ?? "STACKED"],
    requiredStatuses: s.requiredStatuses,
    mergeMethod: MergeMethod[s.mergeMethod],
    commentsEnabled: s.commentsEnabled,
    commandsEnabled: s.commandsEnabled,
    statusCheckEnabled: s.statusCheckEnabled,
    directMergeMode: DirectMergeMode[s.directMergeMode],
    optimizationMode: OptimizationMode[effectiveOptimizationMode(s)],
    ...testAwareSwitchesToProto(s),
    ...(p.targetBroken == null
      ? {}
      : {
          targetBroken: {
            testId: p.targetBroken.test.id,
            testName: p.targetBroken.test.name,
            since: new Date(p.targetBroken.since),
            reason: targetBrokenReason(p.branch, p.targetBroken),
          },
        }),
    enqueuedPullRequests: withPullRequests ? enqueuedWithPlacement(p, suffix) : [],
    activeTestRuns: withPullRequests
      ? Object.values(p.runs)
          .filter((r) => r.status === "RUNNING")
          .map((r) => ({
            testRunId: globalId(r.id, suffix),
            isBisection: r.kind === "bisection",
            prNumbers: r.prs,
            startedAt: new Date(r.startedAt),
            // The branch and its commit are in the run's record; getQueue adds them.
            testBranch: "",
            testBranchSha: "",
          }))
      : [],
    maxStackSize: s.maxStackSize ?? MAX_STACK_SIZE,
    createdAt: new Date(doc.createdAt),
    recentRunDurationsMs: doc.recentRunDurationsMs ?? [],
  };
}

/** Queue order first (what will merge first), then PRs still NOT_READY by submission. */
function enqueuedInOrder(p: PlannerState): PullRequestEntry[] {
  const inOrder = p.order.map((n) => p.prs[String(n)]).filter((e): e is PullRequestEntry => e !== undefined);
  const placed = new Set(p.order);
  const waiting = Object.values(p.prs)
    .filter((e) => !placed.has(e.number))
    .sort((a, b) => a.submittedAt - b.submittedAt || a.number - b.number);
  return [...inOrder, ...waiting];
}

function enqueuedWithPlacement(p: PlannerState, suffix: string): EnqueuedPullRequest[] {
  const placement = batchPlacement(p);
  const stackOf = stackViews(p.prs);
  return enqueuedInOrder(p).map((e) => enqueuedToProto(e, p, suffix, placement.get(e.number), stackOf(e)));
}

export function enqueuedToProto(
  e: PullRequestEntry,
  p: PlannerState,
  suffix: string,
  placement?: Placement,
  stack?: StackView,
): EnqueuedPullRequest {
  const local = runTesting(p, e.number);
  const runId = local ? globalId(local, suffix) : undefined;
  return {
    id: e.id,
    state: prStateToProto(e.state),
    stateChangedAt: new Date(e.stateChangedAt),
    priorityValue: e.priority.value,
    priorityName: e.priority.name ?? "",
    noBatch: e.noBatch,
    prNumber: e.number,
    prTitle: e.facts?.title ?? "",
    prSha: e.facts?.headSha ?? "",
    prBaseBranch: e.facts?.baseBranch ?? "",
    prAuthor: e.facts?.author ?? "",
    submittedAt: new Date(e.submittedAt),
    ...(runId ? { testRunId: runId } : {}),
    ...(placement
      ? { batchId: placement.batchId, batchStatus: placement.batchStatus, lane: placement.lane }
      : {}),
    ...(stack ? { stack } : {}),
  };
}

export function submittedToProto(
  e: PullRequestEntry,
  p: PlannerState,
  current: boolean,
  suffix: string,
): SubmittedPullRequest {
  const requiresTargets = p.settings.mode === "PARALLEL";
  const readiness = queueReadiness(p.prs, e, p.branch, requiresTargets);
  const stack = stackViews(p.prs)(e);
  const last = e.history[e.history.length - 1];
  const reason = last?.reason as string | undefined;
  return {
    id: e.id,
    state: prStateToProto(e.state),
    stateChangedAt: new Date(e.stateChangedAt),
    readiness: {
      hasImpactedTargets: e.impactedTargets !== null && e.impactedTargets.sha === e.facts?.headSha,
      requiresImpactedTargets: requiresTargets,
      // A stacked PR's base is the head branch of the PR under it, which lands first (issue 28).
      doesBaseBranchMatch:
        e.facts !== null && (e.facts.baseBranch === p.branch || e.facts.stackedOn !== undefined),
      // Mergeability comes from a hosted code host's API, which the git adapter does not have.
      gitHubMergeability:
        e.facts === null
          ? GitHubMergeability.UNSPECIFIED
          : readiness.ready
            ? GitHubMergeability.MERGEABLE
            : GitHubMergeability.UNSPECIFIED,
      ...(readiness.ready ? {} : { notReadyReason: readiness.reason }),
    },
    priorityValue: e.priority.value,
    priorityName: e.priority.name ?? "",
    usedDefaultPriorityName: e.priority.usedDefault,
    skipTheLine: e.priority.value === PRIORITY_VALUES.urgent,
    isCurrentlySubmittedToQueue: current,
    prNumber: e.number,
    prTitle: e.facts?.title ?? "",
    prSha: e.facts?.headSha ?? "",
    prBaseBranch: e.facts?.baseBranch ?? "",
    prAuthor: e.facts?.author ?? "",
    ...(e.state === "FAILED" && reason ? { failureReason: reason } : {}),
    ...(e.state === "CANCELLED" && reason ? { cancellationReason: reason } : {}),
    history: e.history.map((t) => ({
      at: new Date(t.at),
      from: t.from ? prStateToProto(t.from) : PullRequestState.UNSPECIFIED,
      to: prStateToProto(t.to),
      reason: t.reason,
      ...(t.runId ? { testRunId: globalId(t.runId, suffix) } : {}),
      ...(t.detail === undefined ? {} : { detail: t.detail }),
    })),
    priorityChanges: (e.priorityChanges ?? []).map((c) => ({
      at: new Date(c.at),
      fromValue: c.from,
      toValue: c.to,
      requestedBy: c.by ?? "",
    })),
    ...(stack ? { stack } : {}),
  };
}
