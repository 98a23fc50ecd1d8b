import type { JetStreamClient } from "nats";
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidArgumentError,
  MainlineError,
  NotFoundError,
  STATUS_TABLE,
} from "@mainline/kit/errors/index";
import type { TestRunOutputs } from "@mainline/kit/streams/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import {
  HostPullRequestState,
  QueueMode,
  QueueState,
  RunnerKind,
  type GetSubmittedPullRequestRequest,
  type SubmittedPullRequest,
  type SubmittedPullRequestLookup,
  TestRunStatus,
  type QueueCoordinatorServer,
} from "@mainline/proto/queue";
import {
  createPlannerState,
  createQueueSettings,
  refuseRemergeOf,
  type PullRequestEntry,
  type PullRequestFacts,
} from "../domain/index.js";
import type { QueueEngine } from "../app/queue-engine.js";
import { queueAddress, queueKey, repoKey, repoRef, type QueueAddress } from "../app/queue-key.js";
import { globalId, incarnation } from "../app/run-ids.js";
import type { PullRequestRecords } from "../store/pull-request-records.js";
import type { QueueDocument, QueueRepository } from "../store/queue-repository.js";
import { DEFAULT_PULL_REF_PATTERN, type RepositoryConnections } from "../store/repository-connections.js";
import type { TestRunRecords } from "../store/test-run-records.js";
import { assertTestCommandEnv } from "../domain/test-command-env.js";
import { nameOf, priorityInput, queueToProto, submittedToProto } from "./proto-mapping.js";
import { testRunOutput, withFailureDetails } from "./test-run-output.js";
import { recentOutcomes } from "./recent-outcomes.js";
import { setPullRequestPriority } from "./set-pull-request-priority.js";
import { reportTestRun } from "../app/test-run-report.js";
import type { GitHubInstallations } from "../store/github-installations.js";
import type { BranchPushes } from "../store/branch-pushes.js";
import type { RequestKeys } from "../store/request-keys.js";
import { githubInstallationsApi } from "./github-installations-api.js";
import { githubFactsApi } from "./github-facts-api.js";

export interface ApiDeps {
  engine: QueueEngine;
  queues: QueueRepository;
  records: PullRequestRecords;
  runs: TestRunRecords;
  connections: RepositoryConnections;
  installations: GitHubInstallations;
  pushes: BranchPushes;
  requestKeys: RequestKeys;
  js: JetStreamClient;
  outputs: TestRunOutputs;
  clock: () => Date;
}

const HOUR_MS = 60 * 60_000;

/** Enough for every poller a gateway replica coalesces in one turn of its event loop. */
const MAX_LOOKUPS_PER_CALL = 1000;

const NOT_SUBMITTED =
  "Pull request with the provided number does not exist or has never been submitted to the specified queue before";
const NOT_SUBMITTED_BRANCH =
  "No pull request from the provided branch has ever been submitted to the specified queue";

/** The QueueCoordinator gRPC service: commands go through the engine, queries read the stored state. */
export function queueCoordinatorApi(deps: ApiDeps): AsyncImplementation<QueueCoordinatorServer> {
  const { engine, queues, records, runs, connections } = deps;

  const settingsPatch = (req: Record<string, unknown>) => {
    const patch: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(req)) {
      if (v === undefined || k === "queue") continue;
      if (k === "mode") patch.mode = nameOf(QueueMode, v as number);
      else if (k === "state") patch.state = nameOf(QueueState, v as number);
      else if (
        k === "mergeMethod" ||
        k === "directMergeMode" ||
        k === "optimizationMode" ||
        k === "batchingMode"
      )
        patch[k] = enumName(k, v as number);
      else if (k === "requiredStatuses") patch.requiredStatuses = (v as { values: string[] }).values;
      else patch[k] = v;
    }
    return patch;
  };

  /** One lookup by number or branch; `readQueue` lets a batch read each queue once. */
  const lookupSubmitted = async (
    req: GetSubmittedPullRequestRequest,
    readQueue: (address: QueueAddress) => Promise<QueueDocument>,
  ): Promise<SubmittedPullRequest> => {
    const address = queueAddress(req.queue);
    const doc = await readQueue(address);
    const key = queueKey(address);
    const queue = { key, incarnation: incarnation(doc._id, doc.createdAt) };
    const ended = (entry: PullRequestEntry) =>
      withFailureDetails(submittedToProto(entry, doc.planner, false, queue.incarnation), entry, queue, runs);
    if (!req.pr) throw new InvalidArgumentError("pr", "one of pr.number or pr.branch is required");
    if (req.pr.$case === "number") {
      const number = prNumber(req.pr.value);
      const active = doc.planner.prs[String(number)];
      if (active) return submittedToProto(active, doc.planner, true, queue.incarnation);
      const finished = await records.latestFinished(key, number);
      if (finished) return ended(finished.entry);
      throw new NotFoundError(NOT_SUBMITTED);
    }
    const branch = req.pr.value.trim();
    if (!branch) throw new InvalidArgumentError("pr.branch", "must not be empty");
    // Spec rule 3: an open PR from the branch that was submitted, else the most recently closed one.
    const facts = await records.factsByBranch(address.org, repoKey(address.repo), branch);
    const openNumbers = new Set(facts.filter((f) => f.facts.open).map((f) => f.number));
    const active = Object.values(doc.planner.prs).filter((e) => e.facts?.headBranch === branch);
    const finished = await records.finishedByBranch(key, branch);
    const openActive = active.find((e) => openNumbers.has(e.number)) ?? active[0];
    if (openActive) return submittedToProto(openActive, doc.planner, true, queue.incarnation);
    const openFinished = finished.find((f) => openNumbers.has(f.number));
    if (openFinished) return ended(openFinished.entry);
    const closed = finished[0];
    if (closed) return ended(closed.entry);
    throw new NotFoundError(NOT_SUBMITTED_BRANCH);
  };
  const readFresh = (address: QueueAddress) => queues.get(address, true);

  /** The commit that carried a merged PR onto the target: its commit in the tested branch, else its head. */
  const landedCommit = async (address: QueueAddress, entry: PullRequestEntry): Promise<string> => {
    const runId = entry.history.findLast((t) => t.to === "MERGED")?.runId ?? null;
    const doc = await queues.get(address, true);
    const record =
      runId === null ? null : await runs.get(doc._id, globalId(runId, incarnation(doc._id, doc.createdAt)));
    return record?.commits[String(entry.number)] || entry.facts?.headSha || "an unknown commit";
  };

  return {
    ...githubInstallationsApi(deps),
    ...githubFactsApi(deps),
    getTestRunOutput: (req) => testRunOutput(deps, req),
    setPullRequestPriority: (req) => setPullRequestPriority(deps, req),

    async createQueue(req) {
      const address = queueAddress(req.queue);
      const settings = createQueueSettings({
        ...(req.mode !== undefined ? { mode: nameOf(QueueMode, req.mode) } : {}),
        ...(req.concurrency !== undefined ? { concurrency: req.concurrency } : {}),
      });
      const now = deps.clock();
      const doc = await queues.create(
        address,
        createPlannerState(address.targetBranch, settings, now.getTime()),
        now,
      );
      return { queue: queueToProto(doc) };
    },

    async getQueue(req) {
      const queue = queueToProto(await queues.get(queueAddress(req.queue), true));
      const key = queueKey(queueAddress(req.queue));
      for (const run of queue.activeTestRuns) {
        const record = await runs.get(key, run.testRunId);
        run.testBranch = record?.testBranch ?? "";
        run.testBranchSha = record?.testBranchSha ?? "";
      }
      return { queue };
    },

    async updateQueue(req) {
      const patch = settingsPatch(req as unknown as Record<string, unknown>);
      const doc = await engine.apply(queueAddress(req.queue), { type: "SETTINGS_UPDATED", patch });
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

    async listQueues(req) {
      if (req.allOrganizations) {
        if (req.org || req.repo)
          throw new InvalidArgumentError("org", "must be empty when allOrganizations is set");
        return { queues: (await queues.all()).map((d) => queueToProto(d)) };
      }
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const docs = await queues.list(req.org, req.repo);
      // The queue list shows what each queue got done lately: the finished records of the last hour.
      const since = deps.clock().getTime() - HOUR_MS;
      return {
        queues: await Promise.all(
          docs.map(async (d) => ({
            ...queueToProto(d),
            lastHour: recentOutcomes(await records.finishedSince(d._id, since)),
          })),
        ),
      };
    },

    async submitPullRequest(req) {
      const address = queueAddress(req.queue);
      const number = prNumber(req.prNumber);
      const key = idempotencyKey(req.idempotencyKey);
      const repeated =
        key !== undefined &&
        (await deps.requestKeys.repeated(queueKey(address), "submit", key, deps.clock()));
      const known = await records.factsOf(address.org, repoKey(address.repo), number);
      const latest = await records.latestFinished(queueKey(address), number);
      const answer = (doc: QueueDocument) => {
        const entry = doc.planner.prs[String(number)];
        if (!entry) throw new NotFoundError(NOT_SUBMITTED);
        return {
          pullRequest: submittedToProto(entry, doc.planner, true, incarnation(doc._id, doc.createdAt)),
        };
      };
      if (latest?.entry.state === "MERGED" && !repeated) {
        refuseRemergeOf(latest.entry, known?.facts ?? null, await landedCommit(address, latest.entry));
      }
      try {
        const doc = await engine.apply(address, {
          type: "PR_SUBMITTED",
          pr: number,
          priority: priorityInput(req.priority),
          noBatch: req.noBatch,
          ...(known ? { facts: known.facts } : {}),
          ...(known?.targets ? { impactedTargets: known.targets } : {}),
        });
        return answer(doc);
      } catch (error) {
        // The first attempt with this key queued it (its answer was lost): answer as it would have.
        if (!(repeated && error instanceof AlreadyExistsError)) throw error;
        return answer(await queues.get(address, true));
      }
    },

    async cancelPullRequest(req) {
      const address = queueAddress(req.queue);
      const key = idempotencyKey(req.idempotencyKey);
      const repeated =
        key !== undefined &&
        (await deps.requestKeys.repeated(queueKey(address), "cancel", key, deps.clock()));
      try {
        await engine.apply(address, { type: "PR_CANCELLED", pr: prNumber(req.prNumber) });
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

    async getSubmittedPullRequest(req) {
      return { pullRequest: await lookupSubmitted(req, readFresh) };
    },

    async getSubmittedPullRequests(req) {
      if (req.lookups.length > MAX_LOOKUPS_PER_CALL)
        throw new InvalidArgumentError("lookups", `must hold at most ${MAX_LOOKUPS_PER_CALL} lookups`);
      // Each queue is read once for the whole batch: the lookups see one state of it, as one call would.
      const reads = new Map<string, Promise<QueueDocument>>();
      const readOnce = (address: QueueAddress) => {
        const key = queueKey(address);
        let read = reads.get(key);
        if (!read) {
          read = readFresh(address);
          reads.set(key, read);
        }
        return read;
      };
      const results: SubmittedPullRequestLookup[] = [];
      for (const lookup of req.lookups) {
        try {
          results.push({ result: { $case: "pullRequest", value: await lookupSubmitted(lookup, readOnce) } });
        } catch (error) {
          // Only a refusal belongs to its lookup; anything else is a fault of the whole call.
          if (!(error instanceof MainlineError)) throw error;
          results.push({
            result: {
              $case: "error",
              value: { code: STATUS_TABLE[error.code].grpc, message: error.message },
            },
          });
        }
      }
      return { results };
    },

    async setImpactedTargets(req) {
      const address = queueAddress(req.queue);
      const number = prNumber(req.prNumber);
      const sha = req.prSha.trim().toLowerCase();
      if (!/^[0-9a-f]{4,64}$/.test(sha))
        throw new InvalidArgumentError("pr.sha", "must be a commit sha (hex)");
      const targets = req.impactedTargets?.all ? "ALL" : (req.impactedTargets?.targets ?? []);
      // Kept per repository as well, so targets uploaded before the PR is submitted are not lost.
      await records.recordTargets(address.org, repoKey(address.repo), number, { sha, targets }, deps.clock());
      const doc = await queues.get(address, true);
      if (doc.planner.prs[String(number)]) {
        await engine.apply(address, { type: "IMPACTED_TARGETS_SET", pr: number, sha, targets });
      }
      return {};
    },

    async getMergeQueueTestingDetails(req) {
      const address = queueAddress(req.queue);
      if (!req.testRunId) throw new InvalidArgumentError("testRunId", "must not be empty");
      const record = await runs.get(queueKey(address), req.testRunId);
      if (!record)
        throw new NotFoundError(
          `test run ${req.testRunId} does not exist in the queue for ${address.targetBranch}`,
        );
      const status = {
        IN_PROGRESS: TestRunStatus.IN_PROGRESS,
        FAILED: TestRunStatus.FAILED,
        CANCELLED: TestRunStatus.CANCELLED,
        SUCCEEDED: TestRunStatus.SUCCEEDED,
      }[record.status];
      const base = `https://${address.repo.host}/${address.repo.owner}/${address.repo.name}/pull/`;
      return {
        details: {
          requiredStatuses: record.requiredStatuses,
          testBranch: record.testBranch,
          testBranchSha: record.testBranchSha,
          createdAt: new Date(record.createdAt),
          status,
          statusChecks: record.statusChecks,
          testedPullRequests: record.prs.map((n) => ({
            prNumber: n,
            prUrl: `${base}${n}`,
            title: record.titles[String(n)] ?? "",
          })),
          impactedTargets: record.impactedTargets,
          impactedTargetsForTestedPrs: record.impactedTargetsForTestedPrs,
          dependentPrs: record.dependentPrs,
        },
      };
    },

    async recordPullRequestFacts(req) {
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const repo = repoRef(req.repo);
      const number = prNumber(req.number);
      const facts: PullRequestFacts = {
        headBranch: required("head_branch", req.headBranch),
        headSha: required("head_sha", req.headSha).toLowerCase(),
        title: req.title,
        author: req.author,
        baseBranch: required("base_branch", req.baseBranch),
        open: req.state !== HostPullRequestState.CLOSED,
      };
      await records.recordFacts(req.org, repoKey(repo), number, facts, req.merged, deps.clock());
      for (const doc of await queues.list(req.org, repo)) {
        if (!doc.planner.prs[String(number)]) continue;
        await engine.apply(
          { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch },
          { type: "PR_FACTS_UPDATED", pr: number, facts },
        );
      }
      return {};
    },

    async getPullRequestFacts(req) {
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const repo = repoRef(req.repo);
      const number = prNumber(req.number);
      const known = await records.factsOf(req.org, repoKey(repo), number);
      // Impacted targets alone (uploaded before any pull_request event) say nothing about the branches.
      if (!known?.facts)
        throw new NotFoundError(
          `no pull_request event has been recorded for pull request ${number} of ${repoKey(repo)}`,
        );
      const f = known.facts;
      return {
        headBranch: f.headBranch,
        headSha: f.headSha,
        title: f.title,
        author: f.author,
        baseBranch: f.baseBranch,
        state: f.open ? HostPullRequestState.OPEN : HostPullRequestState.CLOSED,
        merged: known.merged ?? false,
      };
    },

    async setRepositoryConnection(req) {
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const c = req.connection;
      const repo = repoRef(c?.repo);
      const remoteUrl = required("remoteUrl", c?.remoteUrl ?? "");
      const kind =
        c?.runner?.kind === RunnerKind.EXTERNAL
          ? "EXTERNAL"
          : c?.runner?.kind === RunnerKind.COMMAND
            ? "COMMAND"
            : undefined;
      if (!kind) throw new InvalidArgumentError("runner.kind", "must be COMMAND or EXTERNAL");
      if (kind === "COMMAND" && !c?.runner?.command.trim())
        throw new InvalidArgumentError("runner.command", "is required for the COMMAND runner");
      const env = c?.runner?.env ?? {};
      assertTestCommandEnv(env);
      const pullRefPattern = c?.pullRefPattern || DEFAULT_PULL_REF_PATTERN;
      if (!pullRefPattern.includes("{number}"))
        throw new InvalidArgumentError("pullRefPattern", 'must contain "{number}"');
      const connection = {
        remoteUrl,
        credentialsSecretName: c?.credentialsSecretName ?? "",
        pullRefPattern,
        runner: { kind, command: c?.runner?.command ?? "", junitGlobs: c?.runner?.junitGlobs ?? [], env },
      } as const;
      await connections.set(
        req.org,
        repoKey(repo),
        { ...connection, runner: { ...connection.runner } },
        deps.clock(),
      );
      return {
        connection: {
          repo,
          ...connection,
          runner: { ...connection.runner, kind: c?.runner?.kind ?? RunnerKind.COMMAND },
        },
      };
    },

    async getRepositoryConnection(req) {
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const repo = repoRef(req.repo);
      const c = await connections.get(req.org, repoKey(repo));
      if (!c) throw new NotFoundError(`repository ${repoKey(repo)} has no connection settings`);
      return {
        connection: {
          repo,
          ...c,
          runner: {
            ...c.runner,
            env: c.runner.env ?? {},
            kind: c.runner.kind === "COMMAND" ? RunnerKind.COMMAND : RunnerKind.EXTERNAL,
          },
        },
      };
    },

    async reportTestRunResult(req) {
      if (!req.org) throw new InvalidArgumentError("org", "is required");
      const record = req.testRunId ? await runs.byRunId(req.testRunId) : null;
      if (!record || !record.queueKey.startsWith(`${req.org}#`))
        throw new NotFoundError(`test run ${req.testRunId} does not exist`);
      if (record.status !== "IN_PROGRESS") {
        throw new FailedPreconditionError(
          `test run ${req.testRunId} is already ${record.status.toLowerCase()}`,
        );
      }
      const doc = await queues.byKey(record.queueKey);
      if (!doc) throw new NotFoundError(`test run ${req.testRunId} does not exist`);
      await reportTestRun(deps, record, doc, {
        passed: req.passed,
        junitXml: req.junitXml,
        reportedAt: deps.clock(),
        ...(req.detailsUrl ? { detailsUrl: req.detailsUrl } : {}),
        ...(req.message ? { message: req.message } : {}),
      });
      return {};
    },
  };
}

function idempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined || key === "") return undefined;
  if (key.length > 128 || !/^[\x21-\x7e]+$/.test(key))
    throw new InvalidArgumentError(
      "idempotencyKey",
      "must be 1..128 printable ASCII characters without spaces",
    );
  return key;
}

function prNumber(n: number): number {
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError("pr.number", "must be a positive integer");
  return n;
}

function required(field: string, value: string): string {
  if (!value.trim()) throw new InvalidArgumentError(field, "must not be empty");
  return value.trim();
}

const ENUM_NAMES: Record<string, Record<number, string>> = {
  mergeMethod: { 1: "MERGE_COMMIT", 2: "SQUASH", 3: "REBASE" },
  directMergeMode: { 1: "OFF", 2: "ALWAYS" },
  optimizationMode: { 1: "OFF", 2: "BISECTION_SKIP_REDUNDANT_TESTS" },
  batchingMode: { 1: "FIXED", 2: "ADAPTIVE" },
};
function enumName(field: string, value: number): string {
  const name = ENUM_NAMES[field]?.[value];
  if (!name) throw new InvalidArgumentError(field, "has an unknown value");
  return name;
}
