import {
  BatchingMode,
  BisectionMode,
  GitHubMergeability,
  PullRequestState,
  TestAwareSwitch,
  type EnqueuedPullRequest,
  type ImpactedTargets,
  type Queue,
  type SubmittedPullRequest,
  type TestingDetails,
} from "@mainline/proto/queue";
import type { QueueRef } from "@mainline/proto/common";
import {
  type DirectMergeMode,
  type GitHubMergeability as GitHubMergeabilityName,
  isBatchStatus,
  type MergeMethod,
  type OptimizationMode,
  type PullRequestState as PullRequestStateName,
  type QueueMode,
  type QueueState,
  runKindOf,
  type TestRunStatus,
} from "@mainline/contract";
import { notReadyReason } from "./not-ready-reason.js";
import type { LinkResolver } from "./public-links.js";
import type { RepoInput } from "./schemas/common.js";

/**
 * Between the REST shapes (compat-notes: camelCase, UPPERCASE states) and the gRPC messages. Enum values are the
 * API's words on both sides (string enums), so only the message shapes are mapped.
 */
export function queueRef(org: string, repo: RepoInput, targetBranch: string): QueueRef {
  return { org, repo: { host: repo.host, owner: repo.owner, name: repo.name }, targetBranch };
}

type EnumObject = Record<string, string>;
/** A wire enum's value is the API's word already (string enums); only a value this build does not know differs. */
const nameOf = (value: string): string => (value === "UNRECOGNIZED" ? "UNSPECIFIED" : value);
/** The wire enum member of an API word that the request schema has already checked. */
export const enumValue = <E extends EnumObject>(e: E, name: string): E[keyof E] => e[name] as E[keyof E];

const iso = (date: Date | undefined): string => (date ?? new Date(0)).toISOString();

export function enqueuedToJson(pr: EnqueuedPullRequest) {
  return {
    id: pr.id,
    state: nameOf(pr.state) as PullRequestStateName,
    stateChangedAt: iso(pr.stateChangedAt),
    priorityValue: pr.priorityValue,
    priorityName: pr.priorityName,
    noBatch: pr.noBatch,
    prNumber: pr.prNumber,
    prTitle: pr.prTitle,
    prSha: pr.prSha,
    prBaseBranch: pr.prBaseBranch,
    prAuthor: pr.prAuthor,
    ...(pr.testRunId ? { testRunId: pr.testRunId } : {}),
    ...(pr.batchId ? { batchId: pr.batchId } : {}),
    ...(pr.batchStatus && isBatchStatus(pr.batchStatus) ? { batchStatus: pr.batchStatus } : {}),
    ...(pr.lane ? { lane: pr.lane } : {}),
    ...(pr.stack ? { stack: { below: pr.stack.below, above: pr.stack.above } } : {}),
  };
}

export function queueSettingsToJson(q: Queue) {
  return {
    state: nameOf(q.state) as QueueState,
    branch: q.ref?.targetBranch ?? "",
    concurrency: q.concurrency,
    testingTimeoutMinutes: q.testingTimeoutMinutes,
    mode: nameOf(q.mode) as QueueMode,
    canOptimisticallyMerge: q.canOptimisticallyMerge,
    pendingFailureDepth: q.pendingFailureDepth,
    batch: q.batch,
    batchingMaxWaitTimeMinutes: q.batchingMaxWaitTimeMinutes,
    batchingMinSize: q.batchingMinSize,
    // A coordinator that predates the setting sends none: it batches FIXED.
    batchingMode: q.batchingMode === BatchingMode.ADAPTIVE ? "ADAPTIVE" : "FIXED",
    bisectionConcurrency: q.bisectionConcurrency,
    // A coordinator that predates the setting sends none: it bisects STACKED.
    bisectionMode: q.bisectionMode === BisectionMode.ISOLATED ? "ISOLATED" : "STACKED",
    requiredStatuses: q.requiredStatuses,
    mergeMethod: nameOf(q.mergeMethod) as MergeMethod,
    commentsEnabled: q.commentsEnabled,
    commandsEnabled: q.commandsEnabled,
    statusCheckEnabled: q.statusCheckEnabled,
    directMergeMode: nameOf(q.directMergeMode) as DirectMergeMode,
    optimizationMode: nameOf(q.optimizationMode) as OptimizationMode,
    ignoreQuarantinedTests: testAwareSetting(q.ignoreQuarantinedTests),
    retryKnownFlakyTests: testAwareSetting(q.retryKnownFlakyTests),
    holdOnBrokenTarget: testAwareSetting(q.holdOnBrokenTarget),
    maxStackSize: q.maxStackSize,
  };
}

/** A coordinator that predates the setting sends UNSPECIFIED: it follows the repository's quarantining. */
function testAwareSetting(value: TestAwareSwitch): boolean | null {
  return value === TestAwareSwitch.ON ? true : value === TestAwareSwitch.OFF ? false : null;
}

/** updateQueue's switches on the wire: null follows the repository's quarantining; undefined keeps the value. */
export function testAwareSwitchesOf(
  s: Record<string, boolean | null | undefined>,
): Record<string, TestAwareSwitch> {
  const out: Record<string, TestAwareSwitch> = {};
  for (const [field, value] of Object.entries(s)) {
    if (value === undefined) continue;
    out[field] =
      value === null ? TestAwareSwitch.FOLLOW_QUARANTINING : value ? TestAwareSwitch.ON : TestAwareSwitch.OFF;
  }
  return out;
}

export function queueToJson(q: Queue) {
  return {
    ...queueSettingsToJson(q),
    ...(q.targetBroken
      ? {
          targetBroken: {
            testId: q.targetBroken.testId,
            testName: q.targetBroken.testName,
            since: iso(q.targetBroken.since),
            reason: q.targetBroken.reason,
          },
        }
      : {}),
    enqueuedPullRequests: q.enqueuedPullRequests.map(enqueuedToJson),
    testRunsInFlight: q.activeTestRuns.map((run) => ({
      id: run.testRunId,
      kind: runKindOf(run.isBisection),
      prNumbers: run.prNumbers,
      testBranch: run.testBranch,
      testBranchSha: run.testBranchSha,
      startedAt: iso(run.startedAt),
    })),
  };
}

export function submittedToJson(
  pr: SubmittedPullRequest,
  targetBranch: string,
  link: LinkResolver = (url) => url,
) {
  const readiness = pr.readiness;
  const state = nameOf(pr.state) as PullRequestStateName;
  const reason = state === "NOT_READY" ? notReadyReason(pr, targetBranch) : undefined;
  return {
    id: pr.id,
    state,
    stateChangedAt: iso(pr.stateChangedAt),
    readiness: {
      hasImpactedTargets: readiness?.hasImpactedTargets ?? false,
      requiresImpactedTargets: readiness?.requiresImpactedTargets ?? false,
      doesBaseBranchMatch: readiness?.doesBaseBranchMatch ?? false,
      gitHubMergeability: nameOf(
        readiness?.gitHubMergeability ?? GitHubMergeability.UNSPECIFIED,
      ) as GitHubMergeabilityName,
      ...(reason ? { reason } : {}),
    },
    priorityValue: pr.priorityValue,
    priorityName: pr.priorityName,
    usedDefaultPriorityName: pr.usedDefaultPriorityName,
    skipTheLine: pr.skipTheLine,
    isCurrentlySubmittedToQueue: pr.isCurrentlySubmittedToQueue,
    prNumber: pr.prNumber,
    prTitle: pr.prTitle,
    prSha: pr.prSha,
    prBaseBranch: pr.prBaseBranch,
    prAuthor: pr.prAuthor,
    ...(pr.stack ? { stack: { below: pr.stack.below, above: pr.stack.above } } : {}),
    ...(pr.failureReason ? { failureReason: pr.failureReason } : {}),
    ...(pr.cancellationReason ? { cancellationReason: pr.cancellationReason } : {}),
    ...(pr.failureDetailsUrl ? { failureDetailsUrl: link(pr.failureDetailsUrl) } : {}),
    history: pr.history.map((t) => ({
      at: iso(t.at),
      from: t.from === PullRequestState.UNSPECIFIED ? null : (nameOf(t.from) as PullRequestStateName),
      to: nameOf(t.to) as PullRequestStateName,
      reason: t.reason,
      ...(t.testRunId ? { testRunId: t.testRunId } : {}),
      ...(t.detail ? { detail: t.detail } : {}),
    })),
    priorityChanges: pr.priorityChanges.map((c) => ({
      at: iso(c.at),
      from: c.fromValue,
      to: c.toValue,
      ...(c.requestedBy ? { by: c.requestedBy } : {}),
    })),
  };
}

export function impactedTargetsToJson(t: ImpactedTargets | undefined): "ALL" | string[] {
  return t?.all ? "ALL" : (t?.targets ?? []);
}

export function testingDetailsToJson(d: TestingDetails, link: LinkResolver = (url) => url) {
  return {
    requiredStatuses: d.requiredStatuses,
    testBranch: d.testBranch,
    testBranchSha: d.testBranchSha,
    createdAt: iso(d.createdAt),
    status: nameOf(d.status) as TestRunStatus,
    statusChecks: d.statusChecks.map((s) => ({ context: s.context, url: link(s.url), state: s.state })),
    testedPullRequests: d.testedPullRequests.map((p) => ({
      prNumber: p.prNumber,
      prUrl: p.prUrl,
      title: p.title,
    })),
    impactedTargets: impactedTargetsToJson(d.impactedTargets),
    impactedTargetsForTestedPrs: impactedTargetsToJson(d.impactedTargetsForTestedPrs),
    dependentPrs: d.dependentPrs,
  };
}
