import { wireWord } from "@mainline/contract";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import { CommitStatusOutcome, CommitStatusState, type QueueCoordinatorServer } from "@mainline/proto/queue";
import { repoKey, repoRef } from "../app/queue-key.js";
import type { TestRunReports } from "../app/test-run-reports.js";
import type { RepositoryConnections } from "../store/repository-connections.js";
import type { TestRunRecords } from "../store/test-run-records.js";
import type { QueueEngine } from "../app/queue-engine.js";
import { verdictOf, withStatus, type StatusState } from "../domain/required-statuses.js";
import type { BranchPushes } from "../store/branch-pushes.js";
import type { QueueRepository } from "../store/queue-repository.js";
import type { StatusCheck } from "../domain/required-statuses.js";

type FactHandlers = Pick<
  AsyncImplementation<QueueCoordinatorServer>,
  "recordCommitStatus" | "recordBranchPush"
>;

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const MAX_CONTEXT = 1024;
const MAX_URL = 2048;

function sha(field: string, value: string): string {
  const lower = value.trim().toLowerCase();
  if (!SHA.test(lower))
    throw new InvalidArgumentError(field, "must be a full commit sha (40 or 64 hex digits)");
  return lower;
}

function text(field: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (!trimmed) throw new InvalidArgumentError(field, "must not be empty");
  if (trimmed.length > max) throw new InvalidArgumentError(field, `must be at most ${max} characters`);
  return trimmed;
}

/** The wire's word is the domain's (string enums); UNSPECIFIED, or a value this build does not know, is none. */
function statusState(state: CommitStatusState): StatusState | undefined {
  return wireWord(state);
}

/** CI statuses on test branches and pushes to target branches, as the code host's webhooks tell them. */
export function githubFactsApi(deps: {
  engine: QueueEngine;
  runs: TestRunRecords;
  connections: RepositoryConnections;
  reports: TestRunReports;
  queues: QueueRepository;
  pushes: BranchPushes;
  clock: () => Date;
}): FactHandlers {
  return {
    async recordCommitStatus(req) {
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const repo = repoRef(req.repo);
      const commit = sha("sha", req.sha);
      const context = text("context", req.context, MAX_CONTEXT);
      const state = statusState(req.state);
      if (!state) throw new InvalidArgumentError("state", "must be PENDING, SUCCESS or FAILURE");
      const url = req.detailsUrl ?? "";
      if (url.length > MAX_URL)
        throw new InvalidArgumentError("detailsUrl", `must be at most ${MAX_URL} characters`);
      const ignored = (reason: string) => ({ outcome: CommitStatusOutcome.IGNORED, testRunId: "", reason });

      // Only the head of one of this repository's runs in progress: statuses on PR heads, target branches or
      // commits of finished runs say nothing the queue waits for.
      const [record] = await deps.runs.inProgressAt(`${req.org}#${repoKey(repo)}#`, commit);
      if (!record) return ignored(`${commit.slice(0, 12)} is not the head of a test run in progress`);
      const doc = await deps.queues.byKey(record.queueKey);
      if (!doc) return ignored(`the queue of test run ${record.runId} no longer exists`);
      const connection = await deps.connections.get(doc.org, doc.repoKey);
      if (record.viaRunner && connection?.runner.kind !== "EXTERNAL")
        return ignored(
          `test run ${record.runId} is run by the batch-runner's command, not by an external CI`,
        );

      const checks = withStatus(record.statusChecks as StatusCheck[], {
        context,
        state,
        url,
        suite: req.suite,
      });
      const verdict = verdictOf(record.requiredStatuses, checks);
      if (verdict.type === "WAITING") {
        await deps.runs.statusChecks(record.queueKey, record.runId, checks);
        return {
          outcome: CommitStatusOutcome.RECORDED,
          testRunId: record.runId,
          reason:
            verdict.missing.length > 0
              ? `waiting for ${verdict.missing.join(", ")}`
              : "waiting for a check suite or workflow run to succeed (no required statuses are set)",
        };
      }
      const passed = verdict.type === "PASSED";
      // The code host's statuses are the external CI's report: applied through the outbox like any report.
      await deps.reports.report(doc.org, record.runId, {
        passed,
        junitXml: [],
        statusChecks: checks,
        ...(url ? { detailsUrl: url } : {}),
      });
      return {
        outcome: passed ? CommitStatusOutcome.PASSED : CommitStatusOutcome.FAILED,
        testRunId: record.runId,
        reason: passed ? "every required status succeeded" : `${verdict.context} failed`,
      };
    },

    async recordBranchPush(req) {
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const repo = repoRef(req.repo);
      const branch = text("branch", req.branch, 255);
      const after = req.deleted ? "" : sha("afterSha", req.afterSha);
      let moved = false;
      let reason = `no queue targets ${branch}`;
      for (const doc of await deps.queues.list(req.org, repo)) {
        if (doc.targetBranch !== branch) continue;
        // A repeated delivery of the same push must not restart the queue a second time.
        const head = after || `deleted:${req.beforeSha.slice(0, 64)}`;
        if (await deps.pushes.seen(doc._id, head)) {
          reason = "this push was already recorded";
          continue;
        }
        if (after && (await deps.runs.builtCommit(doc._id, after))) {
          reason = "the push is a merge of the queue's own tested commits";
          continue;
        }
        const merging = Object.values(doc.planner.prs).some((e) => e.mergeId !== null);
        if (merging) {
          // The merge in flight finds out by itself whether the target moved under it (TARGET_MOVED).
          reason = "a merge of the queue is in flight; its own result tells whether the target moved";
          continue;
        }
        await deps.engine.apply(
          { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch },
          { type: "TARGET_BRANCH_MOVED" },
        );
        await deps.pushes.record(doc._id, head);
        moved = true;
        reason = `${branch} moved outside the queue; its test runs restart on the new head`;
      }
      return { targetMoved: moved, reason };
    },
  };
}
