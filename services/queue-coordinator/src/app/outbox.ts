import { type RunKind, wireRunKind } from "@mainline/contract";
import type { JetStreamClient } from "nats";
import { captureTraceCarrier, publish, type MessageCodec } from "@mainline/kit/bus/index";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { UploadTestResultsRequest } from "@mainline/proto/flaky";
import {
  BatchEventType,
  BatchLifecycleEvent,
  type GitHubAccess,
  MergeJob,
  PullRequestEventType,
  PullRequestLifecycleEvent,
  PullRequestPriorityChanged,
  PullRequestState,
  QueueEventType,
  QueueLifecycleEvent,
  QueueMode,
  QueueState,
  TestBranchCleanupJob,
  TestRunEventType,
  TestRunJob,
  TestRunKind,
  TestRunLifecycleEvent,
  TestRunOutcome,
} from "@mainline/proto/queue";
import type { Decision, Notice, PlannerState, PrState } from "../domain/index.js";
import { CANCELLATION_REASONS, FAILURE_REASONS } from "../domain/index.js";
import type { OutboxMessage } from "../store/outbox-message.js";
import type { QueueDocument } from "../store/queue-repository.js";
import type { RepositoryConnection } from "../store/repository-connections.js";
import type { TestRunRecord } from "../store/test-run-records.js";
import { mergeJob, testBranchCleanupJob, testRunJob, type JobTarget } from "./outbox-jobs.js";
import { globalId, incarnation, testBranchName } from "./run-ids.js";

const BYTES: MessageCodec<Uint8Array> = {
  encode: (bytes) => ({ finish: () => bytes }),
  decode: (bytes) => bytes,
};

/** Publishes every pending message; the deterministic msgIds make a repeat after a crash a no-op. */
export async function publishOutbox(js: JetStreamClient, messages: readonly OutboxMessage[]): Promise<void> {
  for (const m of messages) {
    await publish(js, m.subject, BYTES, Buffer.from(m.payload, "base64"), {
      msgId: m.msgId,
      ...(m.trace && { traceCarrier: m.trace }),
    });
  }
}

function message<T>(subject: string, msgId: string, codec: MessageCodec<T>, value: T): OutboxMessage {
  const payload = Buffer.from(codec.encode(value).finish()).toString("base64");
  const trace = captureTraceCarrier();
  return { subject, msgId, payload, ...(Object.keys(trace).length > 0 && { trace }) };
}

/** The wire's member for a domain word: string enums, the same word. */
export const prStateToProto = (s: PrState): PullRequestState => PullRequestState[s];

/** compat-notes' webhook vocabulary; other transitions are published as STATE_CHANGED. */
function prEventType(from: PrState | null, to: PrState): PullRequestEventType {
  if (from === null) return PullRequestEventType.SUBMITTED;
  switch (to) {
    case "PENDING":
      return PullRequestEventType.QUEUED;
    case "TESTING":
      return PullRequestEventType.TESTING;
    case "MERGED":
      return PullRequestEventType.MERGED;
    case "FAILED":
      return PullRequestEventType.FAILED;
    case "CANCELLED":
      return PullRequestEventType.CANCELED;
    default:
      return PullRequestEventType.STATE_CHANGED;
  }
}

export interface OutboxContext {
  doc: QueueDocument;
  /** The state after the step (entries of PRs still queued). */
  state: PlannerState;
  connection: RepositoryConnection | null;
  /** The GitHub App installation of the organisation that covers the repository, if any. */
  githubInstallationId?: number | null;
  /** Records of runs a MERGE refers to (for the tested commits). */
  runRecords: ReadonlyMap<string, TestRunRecord>;
  now: Date;
}

/**
 * Turns the planner's decisions and notices into bus messages. Jobs go to the batch-runner only for
 * repositories with a connection; without one the queue is driven through the API alone.
 */
export class OutboxBuilder {
  readonly messages: OutboxMessage[] = [];
  private seq: number;
  private readonly suffix: string;

  constructor(private readonly ctx: OutboxContext) {
    this.seq = ctx.doc.eventSeq;
    this.suffix = incarnation(ctx.doc._id, ctx.doc.createdAt);
  }

  get eventSeq(): number {
    return this.seq;
  }

  private nextEventId(): string {
    this.seq += 1;
    return `${this.suffix}-${this.seq}`;
  }

  private github(mergeThroughApi: boolean): { github?: GitHubAccess } {
    const installationId = this.ctx.githubInstallationId;
    return installationId ? { github: { installationId, mergeThroughApi } } : {};
  }

  private queueRef() {
    const { doc } = this.ctx;
    return { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch };
  }

  private jobTarget(connection: RepositoryConnection): JobTarget {
    return {
      queue: this.queueRef(),
      connection,
      state: this.ctx.state,
      github: (mergeThroughApi) => this.github(mergeThroughApi),
    };
  }

  decision(d: Decision): void {
    const { connection, state, doc, now } = this.ctx;
    if (d.type === "START_TEST_RUN") {
      const runId = globalId(d.runId, this.suffix);
      const testBranch = connection ? testBranchName(doc.targetBranch, runId) : "";
      this.lifecycle(TestRunEventType.STARTED, runId, d.kind, [...d.dependentPrs, ...d.prs], d.prs, {
        testBranch,
      });
      if (!connection) return;
      const job = testRunJob(this.jobTarget(connection), d, runId, testBranch, now);
      this.messages.push(message(SUBJECTS.testRunJob, `job-${runId}`, TestRunJob, job));
    } else if (d.type === "CANCEL_TEST_RUN") {
      // The step may already have dropped the run; the state before it still knows it.
      const run = state.runs[d.runId] ?? doc.planner.runs[d.runId];
      const runId = globalId(d.runId, this.suffix);
      // The batch-runner running it stops on this event and deletes the branch; the webhooks service
      // sends test_run.cancelled, so a CI that builds the branch can stop too.
      this.lifecycle(
        TestRunEventType.CANCELLED,
        runId,
        run?.kind ?? "main",
        run ? [...run.base, ...run.prs] : [],
        run?.prs ?? [],
        { testBranch: connection ? testBranchName(doc.targetBranch, runId) : "", reason: d.reason },
      );
      // The batch-runner's part of an external CI's run ended with the push; the CI stops when the branch goes.
      if (connection?.runner.kind === "EXTERNAL") {
        const cleanup = testBranchCleanupJob(this.jobTarget(connection), runId);
        this.messages.push(
          message(SUBJECTS.testBranchCleanupJob, `cleanup-${runId}`, TestBranchCleanupJob, cleanup),
        );
      }
    } else {
      if (!connection) return;
      const mergeId = globalId(d.mergeId, this.suffix);
      const job = mergeJob(this.jobTarget(connection), d, mergeId, this.ctx.runRecords.get(d.runId));
      this.messages.push(message(SUBJECTS.mergeJob, `merge-${mergeId}`, MergeJob, job));
    }
  }

  notice(n: Notice): void {
    const { doc } = this.ctx;
    const base = {
      org: doc.org,
      repository: doc.repo,
      targetBranch: doc.targetBranch,
      timestamp: this.ctx.now,
    };
    if (n.type === "PR_STATE_CHANGED") {
      const eventId = this.nextEventId();
      const runId = n.runId ? globalId(n.runId, this.suffix) : undefined;
      const reason = n.reason as string;
      const event: PullRequestLifecycleEvent = {
        ...base,
        eventId,
        timestamp: new Date(n.at),
        type: prEventType(n.from, n.to),
        prNumber: n.pr,
        status: PullRequestState[n.to],
        previousStatus: n.from ? PullRequestState[n.from] : PullRequestState.UNSPECIFIED,
        batched: n.batched,
        isBisection: n.isBisection,
        testBranch: runId ? testBranchName(doc.targetBranch, runId) : "",
        testBranchSha: "",
        ...(n.to === "FAILED" && (FAILURE_REASONS as readonly string[]).includes(reason)
          ? { failureReason: reason }
          : {}),
        ...(n.to === "CANCELLED" && (CANCELLATION_REASONS as readonly string[]).includes(reason)
          ? { cancellationReason: reason }
          : {}),
        ...(runId ? { testRunId: runId } : {}),
      };
      this.messages.push(
        message(SUBJECTS.pullRequestEvent, `evt-${eventId}`, PullRequestLifecycleEvent, event),
      );
    } else if (n.type === "PR_PRIORITY_CHANGED") {
      const eventId = this.nextEventId();
      const event: PullRequestPriorityChanged = {
        eventId,
        timestamp: new Date(n.at),
        queue: this.queueRef(),
        prNumber: n.pr,
        fromValue: n.from,
        toValue: n.to,
        requestedBy: n.by ?? "",
      };
      this.messages.push(
        message(SUBJECTS.pullRequestPriorityEvent, `evt-${eventId}`, PullRequestPriorityChanged, event),
      );
    } else if (n.type === "BATCH_PENDING_FAILURE" || n.type === "BATCH_MERGED") {
      const eventId = this.nextEventId();
      const event: BatchLifecycleEvent = {
        ...base,
        eventId,
        timestamp: new Date(n.at),
        type: n.type === "BATCH_PENDING_FAILURE" ? BatchEventType.PENDING_FAILURE : BatchEventType.MERGED,
        prNumbers: n.prs,
        ...(n.type === "BATCH_PENDING_FAILURE" ? { testRunId: globalId(n.runId, this.suffix) } : {}),
      };
      this.messages.push(message(SUBJECTS.batchEvent, `evt-${eventId}`, BatchLifecycleEvent, event));
    } else if (n.type === "BISECTION_RESULT_REUSED") {
      const eventId = this.nextEventId();
      const event: TestRunLifecycleEvent = {
        eventId,
        type: TestRunEventType.REUSED,
        timestamp: new Date(n.at),
        queue: this.queueRef(),
        testRunId: globalId(n.runId, this.suffix),
        kind: TestRunKind.BISECTION,
        prNumbers: n.prs,
        testedPrNumbers: [],
        outcome: TestRunOutcome[n.outcome],
        testBranch: "",
        reason: "",
      };
      this.messages.push(message(SUBJECTS.testRunEvent, `evt-${eventId}`, TestRunLifecycleEvent, event));
    } else if (n.type === "RUN_FAILURE_DECIDED") {
      // Issue 26: what a failed run's tests decided shows in the PRs' history; its own event is the wiring's.
      return;
    } else {
      // Paused, resumed, drained, switched, or held for a broken target: the open pages re-read the queue.
      const eventId = this.nextEventId();
      const event: QueueLifecycleEvent =
        n.type === "TARGET_BROKEN" || n.type === "TARGET_RECOVERED"
          ? {
              eventId,
              // TARGET_BROKEN is also the queue.target_broken webhook (the webhooks service).
              type:
                n.type === "TARGET_BROKEN" ? QueueEventType.TARGET_BROKEN : QueueEventType.TARGET_RECOVERED,
              timestamp: new Date(n.at),
              queue: this.queueRef(),
              state: QueueState[this.ctx.state.queueState],
              previousState: QueueState[this.ctx.state.queueState],
              mode: QueueMode[this.ctx.state.settings.mode],
              previousMode: QueueMode[this.ctx.state.settings.mode],
              ...(n.type === "TARGET_BROKEN" && {
                targetBroken: {
                  testId: n.test.id,
                  testName: n.test.name,
                  since: new Date(n.since),
                  reason: n.reason,
                },
              }),
            }
          : n.type === "QUEUE_STATE_CHANGED"
            ? {
                eventId,
                type: QueueEventType.STATE_CHANGED,
                timestamp: new Date(n.at),
                queue: this.queueRef(),
                state: QueueState[n.to],
                previousState: QueueState[n.from],
                mode: QueueMode[this.ctx.state.settings.mode],
                previousMode: QueueMode[this.ctx.state.settings.mode],
              }
            : {
                eventId,
                type: QueueEventType.MODE_CHANGED,
                timestamp: new Date(n.at),
                queue: this.queueRef(),
                state: QueueState[this.ctx.state.queueState],
                previousState: QueueState[this.ctx.state.queueState],
                mode: QueueMode[n.to],
                previousMode: QueueMode[n.from],
              };
      this.messages.push(message(SUBJECTS.queueEvent, `evt-${eventId}`, QueueLifecycleEvent, event));
    }
  }

  /** An external CI's JUnit for flaky-analytics, owed with the step that finished its run. */
  testResultsUpload(testRunId: string, upload: UploadTestResultsRequest): void {
    this.messages.push(
      message(SUBJECTS.testResults, `results-${testRunId}`, UploadTestResultsRequest, upload),
    );
  }

  /** Test-run facts for the metrics service (runs started, reused, cancelled). */
  private lifecycle(
    type: TestRunEventType,
    runId: string,
    kind: RunKind,
    prs: number[],
    tested: number[] = [],
    extra: { testBranch?: string; reason?: string } = {},
  ): void {
    const eventId = this.nextEventId();
    const event: TestRunLifecycleEvent = {
      eventId,
      type,
      timestamp: this.ctx.now,
      queue: this.queueRef(),
      testRunId: runId,
      kind: TestRunKind[wireRunKind(kind)],
      prNumbers: prs,
      testedPrNumbers: tested,
      outcome: TestRunOutcome.UNSPECIFIED,
      testBranch: extra.testBranch ?? "",
      reason: extra.reason ?? "",
      ...(type === TestRunEventType.STARTED ? { startedAt: this.ctx.now } : { finishedAt: this.ctx.now }),
    };
    this.messages.push(message(SUBJECTS.testRunEvent, `evt-${eventId}`, TestRunLifecycleEvent, event));
  }

  /** A finished run, reported to the metrics service. */
  runFinished(
    runId: string,
    kind: RunKind,
    prs: number[],
    outcome: TestRunOutcome,
    startedAt: Date | undefined,
  ): void {
    const eventId = this.nextEventId();
    const event: TestRunLifecycleEvent = {
      eventId,
      type: TestRunEventType.FINISHED,
      timestamp: this.ctx.now,
      queue: this.queueRef(),
      testRunId: globalId(runId, this.suffix),
      kind: TestRunKind[wireRunKind(kind)],
      prNumbers: prs,
      testedPrNumbers: [],
      outcome,
      testBranch: "",
      reason: "",
      ...(startedAt ? { startedAt } : {}),
      finishedAt: this.ctx.now,
    };
    this.messages.push(message(SUBJECTS.testRunEvent, `evt-${eventId}`, TestRunLifecycleEvent, event));
  }
}
