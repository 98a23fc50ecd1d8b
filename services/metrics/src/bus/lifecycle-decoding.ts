import { lowerCaseWord, runKindOfWire, type WireWord, wireWord } from "@mainline/contract";
import type { TestStatusChanged } from "@mainline/proto/flaky";
import type { PullRequestLifecycleEvent, TestRunLifecycleEvent } from "@mainline/proto/queue";
import type { RepoRef } from "@mainline/proto/common";
import type {
  PullRequestState as DomainState,
  PullRequestTransition,
} from "../domain/pull-request-timeline.js";
import type { QueueIdentity } from "../domain/queue-identity.js";
import type { TestRunFact, TestRunOutcome as DomainOutcome } from "../domain/test-run-facts.js";
import type { TestHealth, TestStatusFact } from "../domain/test-status.js";

/**
 * A wire enum's value is the domain's word (string enums): UNSPECIFIED, or a value this build does not know
 * (a newer publisher's), is none. Outcomes and test health are the same words in lower case.
 */
const wordOf = wireWord;
function lowerWordOf<E extends string>(value: E): Lowercase<WireWord<E>> | undefined {
  const word = wireWord(value);
  return word === undefined ? undefined : lowerCaseWord(word);
}

/** Undefined for an event without a state the metrics know (a newer publisher's, or a malformed one). */
export function transitionOf(event: PullRequestLifecycleEvent): PullRequestTransition | undefined {
  const to: DomainState | undefined = wordOf(event.status);
  if (to === undefined || !event.org || event.timestamp === undefined) return undefined;
  return {
    eventId: event.eventId,
    queue: queueOf(event.org, event.repository, event.targetBranch),
    pr: event.prNumber,
    from: wordOf(event.previousStatus) ?? null,
    to,
    at: event.timestamp.getTime(),
    isBisection: event.isBisection,
  };
}

export function testRunFactOf(event: TestRunLifecycleEvent): TestRunFact | undefined {
  const type: TestRunFact["type"] | undefined = wordOf(event.type);
  if (type === undefined || !event.queue?.org || event.timestamp === undefined) return undefined;
  return {
    eventId: event.eventId,
    type,
    queue: queueOf(event.queue.org, event.queue.repo, event.queue.targetBranch),
    runId: event.testRunId,
    kind: runKindOfWire(event.kind),
    testedPrs: [...event.testedPrNumbers],
    outcome: (lowerWordOf(event.outcome) satisfies DomainOutcome | undefined) ?? null,
    startedAt: event.startedAt?.getTime() ?? null,
    finishedAt: event.finishedAt?.getTime() ?? null,
    at: event.timestamp.getTime(),
  };
}

export function testStatusFactOf(event: TestStatusChanged): TestStatusFact | undefined {
  const status: TestHealth | undefined = lowerWordOf(event.newStatus);
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
