import type { JetStreamClient } from "nats";
import { ConflictError } from "@mainline/kit/errors/index";
import type { Logger } from "@mainline/kit/logging/index";
import {
  countStep,
  plan,
  type Decision,
  type Notice,
  type PlannerState,
  type QueueEvent,
} from "../domain/index.js";
import type { PullRequestRecords } from "../store/pull-request-records.js";
import type { QueueDocument, QueueRepository } from "../store/queue-repository.js";
import type { RepositoryConnections } from "../store/repository-connections.js";
import type { GitHubInstallations } from "../store/github-installations.js";
import type { InsightHours } from "../store/insight-hours.js";
import { coversRepository } from "../domain/github-installation.js";
import { TestRunRecords, type TestRunRecord } from "../store/test-run-records.js";
import { OutboxBuilder, publishOutbox } from "./outbox.js";
import { queueKey, type QueueAddress } from "./queue-key.js";
import { recentRunDurationsAfter } from "./recent-run-durations.js";
import { globalId, incarnation, testBranchName } from "./run-ids.js";

export interface EngineDeps {
  queues: QueueRepository;
  records: PullRequestRecords;
  runs: TestRunRecords;
  connections: RepositoryConnections;
  /** GitHub App installations: jobs of a repository one of them covers carry its id (git token, API merges). */
  installations?: GitHubInstallations;
  /** Finished hours of the queues' insights; absent: hours stay in the queue document (unit tests). */
  insightHours?: InsightHours;
  js: JetStreamClient;
  logger: Logger;
  clock: () => Date;
}

/** Extra bus messages a caller adds to the same atomic write (e.g. a run-finished fact for the metrics). */
export type Extras = (builder: OutboxBuilder, doc: QueueDocument) => void;

export type EventSource = QueueEvent | ((doc: QueueDocument) => QueueEvent | Promise<QueueEvent>);

const MAX_ATTEMPTS = 5;

/**
 * The imperative shell around the planner (DESIGN rule 2): one event at a time per queue, the new state and the
 * messages it owes written together (rule 4), then the messages published. A lost compare-and-set (another
 * replica wrote first) re-reads and re-plans; a command the planner refuses changes nothing.
 */
export class QueueEngine {
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Called after every committed step with the queue's next alarm. */
  onWake: (address: QueueAddress, wakeAt: number | null) => void = () => undefined;

  constructor(private readonly deps: EngineDeps) {}

  apply(address: QueueAddress, source: EventSource, extras?: Extras): Promise<QueueDocument> {
    return this.serialized(queueKey(address), () => this.applyNow(address, source, extras));
  }

  /** Runs work on one queue after everything already queued for it, so steps never interleave. */
  serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return next;
  }

  private async applyNow(
    address: QueueAddress,
    source: EventSource,
    extras?: Extras,
  ): Promise<QueueDocument> {
    for (let attempt = 0; ; attempt++) {
      const doc = await this.deps.queues.get(address, attempt > 0);
      const now = this.deps.clock();
      const event = typeof source === "function" ? await source(doc) : source;
      const connection = await this.deps.connections.get(doc.org, doc.repoKey);
      const { state, decisions, notices, wakeAt } = this.run(
        doc.planner,
        event,
        now.getTime(),
        connection === null,
      );
      const runRecords = await this.recordsForMerges(doc, decisions);
      const githubInstallationId = connection && decisions.length > 0 ? await this.installationOf(doc) : null;
      const builder = new OutboxBuilder({ doc, state, connection, githubInstallationId, runRecords, now });
      for (const d of decisions) builder.decision(d);
      for (const n of notices) builder.notice(n);
      extras?.(builder, doc);
      // Counted in the same write as the step: a retried step recounts from the stored hour, never twice.
      const insights = countStep(doc.insights, {
        now: now.getTime(),
        before: doc.planner,
        after: state,
        decisions,
        notices,
      });
      const next: QueueDocument = {
        ...doc,
        revision: doc.revision + 1,
        planner: state,
        outbox: [...doc.outbox, ...builder.messages],
        eventSeq: builder.eventSeq,
        wakeAt,
        recentRunDurationsMs: recentRunDurationsAfter(doc, event, now.getTime()),
        insights: insights.open,
        insightsSealed: [...(doc.insightsSealed ?? []), ...insights.sealed],
      };
      // Written before the queue commits, so a PR never disappears from the queue before its end is readable
      // (a reader checks the queue first, so an end recorded for a plan that then loses its write is never seen:
      // the PR is still in the queue, and its real end later replaces this one under the same entry id).
      for (const n of notices) {
        if (n.type === "PR_STATE_CHANGED" && n.finalEntry)
          await this.deps.records.recordFinished(doc._id, n.finalEntry);
      }
      try {
        await this.deps.queues.save(next);
      } catch (error) {
        if (error instanceof ConflictError && attempt + 1 < MAX_ATTEMPTS) continue;
        throw error;
      }
      await this.afterCommit(next, decisions, connection !== null, now);
      this.onWake(address, wakeAt);
      return this.flush(next);
    }
  }

  /** The organisation's active installation that covers the queue's repository (none: plain git). */
  private async installationOf(doc: QueueDocument): Promise<number | null> {
    const installations = (await this.deps.installations?.list(doc.org)) ?? [];
    return installations.find((i) => coversRepository(i, doc.org, doc.repo))?.installationId ?? null;
  }

  /**
   * Plans one event. Without a repository connection the queue is driven through the API alone and merging is
   * a record, so a merge decision completes at once (the planner sees MERGE_FINISHED in the same step).
   */
  private run(state: PlannerState, event: QueueEvent, now: number, mergesComplete: boolean) {
    let step = plan(state, event, now);
    const decisions: Decision[] = [...step.decisions];
    const notices: Notice[] = [...step.notices];
    let pending: Decision[] = mergesComplete ? step.decisions.filter((d) => d.type === "MERGE") : [];
    while (pending.length > 0) {
      const next: Decision[] = [];
      for (const merge of pending) {
        if (merge.type !== "MERGE") continue;
        step = plan(step.state, { type: "MERGE_FINISHED", mergeId: merge.mergeId, outcome: "MERGED" }, now);
        decisions.push(...step.decisions);
        notices.push(...step.notices);
        next.push(...step.decisions.filter((d) => d.type === "MERGE"));
      }
      pending = next;
    }
    return { state: step.state, decisions, notices, wakeAt: step.wakeAt };
  }

  private async recordsForMerges(
    doc: QueueDocument,
    decisions: Decision[],
  ): Promise<Map<string, TestRunRecord>> {
    const records = new Map<string, TestRunRecord>();
    for (const d of decisions) {
      if (d.type !== "MERGE" || records.has(d.runId)) continue;
      const record = await this.deps.runs.get(
        doc._id,
        globalId(d.runId, incarnation(doc._id, doc.createdAt)),
      );
      if (record) records.set(d.runId, record);
    }
    return records;
  }

  /** Side records that queries read; each write is idempotent, so a retried step may repeat them. */
  private async afterCommit(
    doc: QueueDocument,
    decisions: Decision[],
    viaRunner: boolean,
    now: Date,
  ): Promise<void> {
    const suffix = incarnation(doc._id, doc.createdAt);
    for (const d of decisions) {
      if (d.type === "START_TEST_RUN") {
        await this.deps.runs.started(testRunRecord(doc, d, suffix, viaRunner, now));
      } else if (d.type === "CANCEL_TEST_RUN") {
        await this.deps.runs.cancelled(doc._id, globalId(d.runId, suffix), now);
      }
    }
  }

  /**
   * Publishes what the document owes the bus and forgets it. If NATS is down the messages stay in the document
   * and the timekeeper tries again; if another writer got in between, it (or the timekeeper) publishes them, and
   * the deterministic msgIds make any repeat harmless.
   */
  async flush(doc: QueueDocument): Promise<QueueDocument> {
    const sealed = this.deps.insightHours ? (doc.insightsSealed ?? []) : [];
    if (doc.outbox.length === 0 && sealed.length === 0) return doc;
    try {
      await publishOutbox(this.deps.js, doc.outbox);
      if (sealed.length > 0) await this.deps.insightHours?.put(doc.org, doc._id, sealed);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, queue: doc._id, pending: doc.outbox.length, sealedHours: sealed.length },
        "publishing the outbox failed; will retry",
      );
      return doc;
    }
    const cleared: QueueDocument = { ...doc, revision: doc.revision + 1, outbox: [], insightsSealed: [] };
    try {
      await this.deps.queues.save(cleared);
      return cleared;
    } catch (error) {
      if (error instanceof ConflictError) return doc;
      throw error;
    }
  }
}

function testRunRecord(
  doc: QueueDocument,
  d: Extract<Decision, { type: "START_TEST_RUN" }>,
  suffix: string,
  viaRunner: boolean,
  now: Date,
): TestRunRecord {
  const runId = globalId(d.runId, suffix);
  const entries = [...d.dependentPrs, ...d.prs].map((n) => doc.planner.prs[String(n)]);
  const titles: Record<string, string> = {};
  for (const e of entries) if (e) titles[String(e.number)] = e.facts?.title ?? "";
  const union = (prs: number[]) => {
    const targets = new Set<string>();
    for (const n of prs) {
      const t = doc.planner.prs[String(n)]?.impactedTargets?.targets;
      if (t === "ALL") return { all: true, targets: [] };
      for (const name of t ?? []) targets.add(name);
    }
    return { all: false, targets: [...targets].sort() };
  };
  return {
    _id: TestRunRecords.id(doc._id, runId),
    queueKey: doc._id,
    runId,
    kind: d.kind,
    viaRunner,
    prs: d.prs,
    dependentPrs: d.dependentPrs,
    titles,
    impactedTargets: union([...d.dependentPrs, ...d.prs]),
    impactedTargetsForTestedPrs: union(d.prs),
    requiredStatuses: doc.planner.settings.requiredStatuses,
    createdAt: now.toISOString(),
    status: "IN_PROGRESS",
    testBranch: viaRunner ? testBranchName(doc.targetBranch, runId) : "",
    testBranchSha: "",
    commits: {},
    statusChecks: [],
    finishedAt: null,
  };
}
