import { AlreadyExistsError, FailedPreconditionError, NotFoundError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import { RunnerKind, type QueueCoordinatorServer } from "@mainline/proto/queue";
import {
  createPlannerState,
  impactedTargets,
  refuseRemergeOf,
  type PullRequestEntry,
} from "../domain/index.js";
import { queueAddress, queueKey, repoKey, type QueueAddress } from "../app/queue-key.js";
import { globalId, incarnation } from "../app/run-ids.js";
import type { QueueDocument } from "../store/queue-repository.js";
import { NOT_SUBMITTED, type ApiDeps } from "./api-deps.js";
import {
  parseCancel,
  parseCreateSettings,
  parseImpactedTargetsCommand,
  parseRecordFacts,
  parseReport,
  parseSetConnection,
  parseSetPriority,
  parseSettingsUpdate,
  parseSubmit,
  prNumber,
} from "./command-parser.js";
import { queueToProto, submittedToProto } from "./proto-mapping.js";
import { resolveStack, stackedFacts } from "./stack-resolution.js";

export type QueueCommands = Pick<
  AsyncImplementation<QueueCoordinatorServer>,
  | "createQueue"
  | "updateQueue"
  | "deleteQueue"
  | "submitPullRequest"
  | "cancelPullRequest"
  | "setPullRequestPriority"
  | "restartTestsOnPullRequest"
  | "setImpactedTargets"
  | "recordPullRequestFacts"
  | "setRepositoryConnection"
  | "reportTestRunResult"
>;

/**
 * The write side of the QueueCoordinator service: each request parsed once into a typed command, then applied
 * through the engine (one step per queue, state and owed messages committed together) or a store of its own.
 */
export function queueCommands(deps: ApiDeps): QueueCommands {
  const { engine, queues, records, runs, connections } = deps;

  /** The commit that carried a merged PR onto the target: its commit in the tested branch, else its head. */
  const landedCommit = async (address: QueueAddress, entry: PullRequestEntry): Promise<string> => {
    const runId = entry.history.findLast((t) => t.to === "MERGED")?.runId ?? null;
    const doc = await queues.get(address, true);
    const record =
      runId === null ? null : await runs.get(doc._id, globalId(runId, incarnation(doc._id, doc.createdAt)));
    return record?.commits[String(entry.number)] || entry.facts?.headSha || "an unknown commit";
  };

  return {
    async createQueue(req) {
      const address = queueAddress(req.queue);
      const settings = parseCreateSettings(req);
      const now = deps.clock();
      const doc = await queues.create(
        address,
        createPlannerState(address.targetBranch, settings, now.getTime()),
        now,
      );
      return { queue: queueToProto(doc) };
    },

    async updateQueue(req, call) {
      const address = queueAddress(req.queue);
      const patch = parseSettingsUpdate(req);
      const doc = await engine.apply(address, { type: "SETTINGS_UPDATED", patch }, undefined, call.signal);
      return { queue: queueToProto(doc, false) };
    },

    async deleteQueue(req) {
      const address = queueAddress(req.queue);
      await engine.serialized(queueKey(address), async () => {
        const doc = await queues.get(address, true);
        const enqueued = Object.keys(doc.planner.prs).length;
        if (enqueued > 0) {
          throw new FailedPreconditionError(
            `the queue for ${address.targetBranch} is not empty: ${enqueued} pull request(s) are enqueued; cancel or merge them first`,
          );
        }
        // flush returns the document as it now stands (its revision moves when the outbox is cleared).
        await queues.delete(await engine.flush(doc));
      });
      return {};
    },

    async submitPullRequest(req) {
      const { address, pr, priority, noBatch, includeStack, idempotencyKey } = parseSubmit(req);
      const repeated =
        idempotencyKey !== undefined &&
        (await deps.requestKeys.repeated(queueKey(address), "submit", idempotencyKey, deps.clock()));
      const known = await records.factsOf(address.org, repoKey(address.repo), pr);
      const latest = await records.latestFinished(queueKey(address), pr);
      const answer = (doc: QueueDocument) => {
        const entry = doc.planner.prs[String(pr)];
        if (!entry) throw new NotFoundError(NOT_SUBMITTED);
        return {
          pullRequest: submittedToProto(entry, doc.planner, true, incarnation(doc._id, doc.createdAt)),
        };
      };
      if (latest?.entry.state === "MERGED" && !repeated) {
        refuseRemergeOf(latest.entry, known?.facts ?? null, await landedCommit(address, latest.entry));
      }
      const repo = { org: address.org, repoKey: repoKey(address.repo) };
      const stack = known?.facts
        ? await resolveStack(records, repo, pr, known.facts, address.targetBranch, async (n) => {
            const finished = await records.latestFinished(queueKey(address), n);
            return finished?.entry.state === "MERGED";
          })
        : undefined;
      const submit = engine.apply(address, {
        type: "PR_SUBMITTED",
        pr,
        priority,
        noBatch,
        ...(stack ? { facts: stack.facts } : {}),
        ...(stack && stack.below.length > 0 ? { stack: { below: stack.below, include: includeStack } } : {}),
        // Normalised again: records written before the parser sorted them hold targets as they were sent.
        ...(known?.targets
          ? { impactedTargets: impactedTargets(known.targets.sha, known.targets.targets) }
          : {}),
      });
      try {
        return answer(await submit);
      } catch (error) {
        // The first attempt with this key queued it (its answer was lost): answer as it would have.
        if (!(repeated && error instanceof AlreadyExistsError)) throw error;
        return answer(await queues.get(address, true));
      }
    },

    async setPullRequestPriority(req) {
      const { address, pr, priority, by } = parseSetPriority(req);
      const doc = await engine.apply(address, {
        type: "PR_PRIORITY_CHANGED",
        pr,
        priority,
        ...(by ? { by } : {}),
      });
      const now = doc.planner.prs[String(pr)]?.priority ?? priority;
      return { priorityValue: now.value, priorityName: now.name ?? "" };
    },

    async cancelPullRequest(req) {
      const { address, pr, idempotencyKey } = parseCancel(req);
      const repeated =
        idempotencyKey !== undefined &&
        (await deps.requestKeys.repeated(queueKey(address), "cancel", idempotencyKey, deps.clock()));
      try {
        await engine.apply(address, { type: "PR_CANCELLED", pr });
      } catch (error) {
        // The first attempt with this key took it out already.
        if (!(repeated && error instanceof NotFoundError)) throw error;
      }
      return {};
    },

    async restartTestsOnPullRequest(req) {
      await engine.apply(queueAddress(req.queue), {
        type: "PR_RESTART_REQUESTED",
        pr: prNumber(req.prNumber),
      });
      return {};
    },

    async setImpactedTargets(req) {
      const { address, pr, targets } = parseImpactedTargetsCommand(req);
      // Kept per repository as well, so targets uploaded before the PR is submitted are not lost.
      await records.recordTargets(address.org, repoKey(address.repo), pr, targets, deps.clock());
      const doc = await queues.get(address, true);
      if (doc.planner.prs[String(pr)]) {
        await engine.apply(address, { type: "IMPACTED_TARGETS_SET", pr, targets });
      }
      return {};
    },

    async recordPullRequestFacts(req) {
      const { org, repo, pr, facts, merged } = parseRecordFacts(req);
      await records.recordFacts(org, repoKey(repo), pr, facts, merged, deps.clock());
      for (const doc of await queues.list(org, repo)) {
        if (!doc.planner.prs[String(pr)]) continue;
        const inQueue = await stackedFacts(records, { org, repoKey: repoKey(repo) }, facts, doc.targetBranch);
        await engine.apply(
          { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch },
          { type: "PR_FACTS_UPDATED", pr, facts: inQueue },
        );
      }
      return {};
    },

    async setRepositoryConnection(req) {
      const { org, repo, connection } = parseSetConnection(req);
      await connections.set(org, repoKey(repo), connection, deps.clock());
      return {
        connection: {
          repo,
          ...connection,
          runner: {
            ...connection.runner,
            env: connection.runner.env ?? {},
            kind: RunnerKind[connection.runner.kind],
          },
        },
      };
    },

    async reportTestRunResult(req) {
      const { org, testRunId, report } = parseReport(req);
      await deps.reports.report(org, testRunId, report);
      return {};
    },
  };
}
