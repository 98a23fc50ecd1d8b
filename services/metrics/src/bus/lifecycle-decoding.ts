import { TestStatus, type TestStatusChanged } from "@mainline/proto/flaky";
import {
  PullRequestState,
  TestRunEventType,
  TestRunKind,
  TestRunOutcome,
  type PullRequestLifecycleEvent,
  type TestRunLifecycleEvent,
} from "@mainline/proto/queue";
import type { RepoRef } from "@mainline/proto/common";
import type {
  PullRequestState as DomainState,
  PullRequestTransition,
} from "../domain/pull-request-timeline.js";
import type { QueueIdentity } from "../domain/queue-identity.js";
import type { TestRunFact, TestRunOutcome as DomainOutcome } from "../domain/test-run-facts.js";
import type { TestHealth, TestStatusFact } from "../domain/test-status.js";

const STATES: Partial<Record<PullRequestState, DomainState>> = {
  [PullRequestState.NOT_READY]: "NOT_READY",
  [PullRequestState.PENDING]: "PENDING",
  [PullRequestState.TESTING]: "TESTING",
  [PullRequestState.TESTS_PASSED]: "TESTS_PASSED",
  [PullRequestState.PENDING_FAILURE]: "PENDING_FAILURE",
  [PullRequestState.MERGED]: "MERGED",
  [PullRequestState.FAILED]: "FAILED",
  [PullRequestState.CANCELLED]: "CANCELLED",
};

const RUN_TYPES: Partial<Record<TestRunEventType, TestRunFact["type"]>> = {
  [TestRunEventType.STARTED]: "STARTED",
  [TestRunEventType.FINISHED]: "FINISHED",
  [TestRunEventType.CANCELLED]: "CANCELLED",
  [TestRunEventType.REUSED]: "REUSED",
};

const OUTCOMES: Partial<Record<TestRunOutcome, DomainOutcome>> = {
  [TestRunOutcome.PASSED]: "passed",
  [TestRunOutcome.FAILED]: "failed",
  [TestRunOutcome.TIMED_OUT]: "timed_out",
  [TestRunOutcome.MERGE_CONFLICT]: "merge_conflict",
  [TestRunOutcome.ERROR]: "error",
};

const HEALTH: Partial<Record<TestStatus, TestHealth>> = {
  [TestStatus.HEALTHY]: "healthy",
  [TestStatus.FLAKY]: "flaky",
  [TestStatus.BROKEN]: "broken",
};

/** Undefined for an event without a state the metrics know (a newer publisher's, or a malformed one). */
export function transitionOf(event: PullRequestLifecycleEvent): PullRequestTransition | undefined {
  const to = STATES[event.status];
  if (to === undefined || !event.org || event.timestamp === undefined) return undefined;
  return {
    eventId: event.eventId,
    queue: queueOf(event.org, event.repository, event.targetBranch),
    pr: event.prNumber,
    from: STATES[event.previousStatus] ?? null,
    to,
    at: event.timestamp.getTime(),
    isBisection: event.isBisection,
  };
}

export function testRunFactOf(event: TestRunLifecycleEvent): TestRunFact | undefined {
  const type = RUN_TYPES[event.type];
  if (type === undefined || !event.queue?.org || event.timestamp === undefined) return undefined;
  return {
    eventId: event.eventId,
    type,
    queue: queueOf(event.queue.org, event.queue.repo, event.queue.targetBranch),
    runId: event.testRunId,
    kind: event.kind === TestRunKind.BISECTION ? "bisection" : "main",
    testedPrs: [...event.testedPrNumbers],
    outcome: OUTCOMES[event.outcome] ?? null,
    startedAt: event.startedAt?.getTime() ?? null,
    finishedAt: event.finishedAt?.getTime() ?? null,
    at: event.timestamp.getTime(),
  };
}

export function testStatusFactOf(event: TestStatusChanged): TestStatusFact | undefined {
  const status = HEALTH[event.newStatus];
  if (status === undefined || !event.org || event.timestamp === undefined) return undefined;
  return {
    eventId: event.eventId,
    org: event.org,
    repo: { host: event.repo?.host ?? "", owner: event.repo?.owner ?? "", name: event.repo?.name ?? "" },
    testId: event.testId,
    status,
    at: event.timestamp.getTime(),
  };
}

function queueOf(org: string, repo: RepoRef | undefined, branch: string): QueueIdentity {
  return { org, host: repo?.host ?? "", owner: repo?.owner ?? "", name: repo?.name ?? "", branch };
}
