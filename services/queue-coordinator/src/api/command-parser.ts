import { InvalidArgumentError } from "@mainline/kit/errors/index";
import {
  BATCHING_MODES,
  BISECTION_MODES,
  DEFAULT_PULL_REF_PATTERN,
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PRIORITY_RULE,
  QUEUE_MODES,
  QUEUE_SETTING_RANGES,
  TEST_AWARE_QUEUE_SETTINGS,
  type QueueIntegerSetting,
  readPriority,
  wireWord,
  type WireWord,
} from "@mainline/contract";
import type { RepoRef } from "@mainline/proto/common";
import {
  HostPullRequestState,
  RunnerKind,
  type CancelPullRequestRequest,
  type CreateQueueRequest,
  type RecordPullRequestFactsRequest,
  type ReportTestRunResultRequest,
  type SetImpactedTargetsRequest,
  type SetPullRequestPriorityRequest,
  type SetRepositoryConnectionRequest,
  type SubmitPullRequestRequest,
  type UpdateQueueRequest,
} from "@mainline/proto/queue";
import {
  createQueueSettings,
  DEFAULT_PRIORITY,
  DEFAULT_QUEUE_SETTINGS,
  impactedTargets,
  namedPriority,
  priorityOfValue,
  REQUESTABLE_QUEUE_STATES,
  type ImpactedTargets,
  type Priority,
  type PullRequestFacts,
  type QueueSettings,
  type QueueSettingsPatch,
} from "../domain/index.js";
import { assertTestCommandEnv } from "../domain/test-command-env.js";
import { queueAddress, repoRef, type QueueAddress } from "../app/queue-key.js";
import type { RepositoryConnection } from "../store/repository-connections.js";
import type { TestRunReport } from "../store/test-run-records.js";
import { splitTestAwareSwitches } from "./test-aware-switches.js";

/**
 * The queue-coordinator's one command parser: each gRPC request becomes a typed command in the domain's words,
 * checked for what the wire cannot express (a bound, a positive number, an enum left UNSPECIFIED, a rule of
 * the domain). Nothing after it validates again.
 */

/*
 * The domain's values read from what a caller sent (a gRPC request here; a workload file in the simulator).
 * Each refuses a bad value with InvalidArgumentError(field, rule); the domain takes only what they return.
 */

/** Accepts a level name in any case, an integer 0..255, or nothing (the default, medium). */
export function parsePriority(input: unknown, field = "priority"): Priority {
  if (input === undefined || input === null) return DEFAULT_PRIORITY;
  const priority = readPriority(input);
  if (typeof priority === "string") return namedPriority(priority);
  if (typeof priority === "number") return priorityOfValue(priority);
  throw new InvalidArgumentError(field, `must be ${PRIORITY_RULE}`);
}

/** A non-empty sha, and a list of non-empty target names or "ALL" in any case. */
export function parseImpactedTargets(sha: unknown, targets: unknown): ImpactedTargets {
  if (typeof sha !== "string" || sha.length === 0)
    throw new InvalidArgumentError("pr.sha", "must be a non-empty string");
  if (typeof targets === "string" && targets.toUpperCase() === "ALL") return impactedTargets(sha, "ALL");
  if (!Array.isArray(targets) || !targets.every((t) => typeof t === "string" && t.length > 0)) {
    throw new InvalidArgumentError("impactedTargets", 'must be a list of non-empty strings or "ALL"');
  }
  return impactedTargets(sha, targets as string[]);
}

const SETTING_WORDS = {
  mode: QUEUE_MODES,
  mergeMethod: MERGE_METHODS,
  directMergeMode: DIRECT_MERGE_MODES,
  optimizationMode: OPTIMIZATION_MODES,
  batchingMode: BATCHING_MODES,
  bisectionMode: BISECTION_MODES,
} as const satisfies { [K in keyof QueueSettings]?: readonly QueueSettings[K][] };
const INTEGER_SETTINGS = [
  "concurrency",
  "batchingMaxWaitTimeMinutes",
  "batchingMinSize",
  "testingTimeoutMinutes",
  "pendingFailureDepth",
  "maxStackSize",
] as const;
const BOOLEANS = [
  "canOptimisticallyMerge",
  "batch",
  "commentsEnabled",
  "commandsEnabled",
  "statusCheckEnabled",
] as const;

function upperWord<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  const upper = typeof value === "string" ? value.toUpperCase() : value;
  if (typeof upper === "string" && (allowed as readonly string[]).includes(upper)) return upper as T;
  throw new InvalidArgumentError(field, `must be one of ${allowed.join(", ")}`);
}

/** The contract's range, the gateway's: one value, one rule. */
function settingInteger(field: QueueIntegerSetting, value: unknown): number {
  const [min, max] = QUEUE_SETTING_RANGES[field];
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new InvalidArgumentError(field, `must be an integer >= ${min}`);
  }
  if (value > max) throw new InvalidArgumentError(field, `must be at most ${max}`);
  return value;
}

const KNOWN_SETTINGS = new Set<string>([...Object.keys(DEFAULT_QUEUE_SETTINGS), "state"]);

/**
 * Checks queue settings field by field and returns a typed patch; the first bad field raises
 * InvalidArgumentError(field, rule). Words (enums) are accepted in any case.
 */
export function parseSettingsPatch(input: Readonly<Record<string, unknown>>): QueueSettingsPatch {
  const patch: QueueSettingsPatch = {};
  const set = patch as Record<string, unknown>;
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (!KNOWN_SETTINGS.has(field)) throw new InvalidArgumentError(field, "is not a queue setting");
    if (field === "state") {
      patch.state = upperWord(field, value, REQUESTABLE_QUEUE_STATES);
    } else if (field in SETTING_WORDS) {
      const key = field as keyof typeof SETTING_WORDS;
      set[key] = upperWord<string>(field, value, SETTING_WORDS[key]);
    } else if ((INTEGER_SETTINGS as readonly string[]).includes(field)) {
      set[field] = settingInteger(field as QueueIntegerSetting, value);
    } else if ((BOOLEANS as readonly string[]).includes(field)) {
      if (typeof value !== "boolean") throw new InvalidArgumentError(field, "must be a boolean");
      set[field] = value;
    } else if ((TEST_AWARE_QUEUE_SETTINGS as readonly string[]).includes(field)) {
      // null: follow the repository's quarantining (issue 26).
      if (typeof value !== "boolean" && value !== null) {
        throw new InvalidArgumentError(field, "must be a boolean or null");
      }
      set[field] = value;
    } else if (field === "bisectionConcurrency") {
      patch.bisectionConcurrency = value === null ? null : settingInteger(field, value);
    } else if (field === "requiredStatuses") {
      if (!Array.isArray(value) || !value.every((s) => typeof s === "string" && s.length > 0)) {
        throw new InvalidArgumentError(field, "must be a list of non-empty strings");
      }
      patch.requiredStatuses = [...new Set(value as string[])];
    }
  }
  return patch;
}

/** A new queue's settings: the defaults overlaid with the checked fields given (a state is not a setting). */
export function parseQueueSettings(input: Readonly<Record<string, unknown>> = {}): QueueSettings {
  const { state: _state, ...settings } = parseSettingsPatch(input);
  return createQueueSettings(settings);
}

export interface SubmitCommand {
  address: QueueAddress;
  pr: number;
  priority: Priority;
  noBatch: boolean;
  /** Also queue the PRs below a stacked PR (issue 28); default on. */
  includeStack: boolean;
  /** The caller's key for retrying this request safely; absent when none was given. */
  idempotencyKey?: string;
}

export interface CancelCommand {
  address: QueueAddress;
  pr: number;
  idempotencyKey?: string;
}

export interface SetPriorityCommand {
  address: QueueAddress;
  pr: number;
  priority: Priority;
  /** Who asked, as the PR's timeline shows it; absent when nobody was named. */
  by?: string;
}

export interface SetImpactedTargetsCommand {
  address: QueueAddress;
  pr: number;
  targets: ImpactedTargets;
}

export interface RecordFactsCommand {
  org: string;
  repo: RepoRef;
  pr: number;
  facts: PullRequestFacts;
  merged: boolean;
}

export interface SetConnectionCommand {
  org: string;
  repo: RepoRef;
  connection: RepositoryConnection;
}

export interface ReportCommand {
  org: string;
  testRunId: string;
  report: TestRunReport;
}

export function prNumber(n: number, field = "pr.number"): number {
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(field, "must be a positive integer");
  return n;
}

export function requiredOrg(org: string): string {
  if (!org) throw new InvalidArgumentError("org", "is required");
  return org;
}

function required(field: string, value: string): string {
  if (!value.trim()) throw new InvalidArgumentError(field, "must not be empty");
  return value.trim();
}

/** A wire enum's value is the domain's word (string enums); UNSPECIFIED, or a value this build does not know, is none. */
function wordOf<E extends string>(value: E | undefined): WireWord<E> | undefined {
  return value === undefined ? undefined : wireWord(value);
}

export function parseSubmit(req: SubmitPullRequestRequest): SubmitCommand {
  const p = req.priority;
  const priority =
    p === undefined
      ? parsePriority(undefined)
      : p.$case === "priorityValue"
        ? parsePriority(p.value)
        : parsePriority(wordOf(p.value) ?? "", "priority");
  const key = idempotencyKey(req.idempotencyKey);
  return {
    address: queueAddress(req.queue),
    pr: prNumber(req.prNumber),
    priority,
    noBatch: req.noBatch,
    includeStack: req.includeStack ?? true,
    ...(key !== undefined && { idempotencyKey: key }),
  };
}

export function parseCancel(req: CancelPullRequestRequest): CancelCommand {
  const key = idempotencyKey(req.idempotencyKey);
  return {
    address: queueAddress(req.queue),
    pr: prNumber(req.prNumber),
    ...(key !== undefined && { idempotencyKey: key }),
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

/** Long enough for "token:<id>" or a code-host login; the timeline shows it as given. */
const MAX_REQUESTED_BY = 200;

export function parseSetPriority(req: SetPullRequestPriorityRequest): SetPriorityCommand {
  const by = req.requestedBy?.trim() ?? "";
  if (by.length > MAX_REQUESTED_BY)
    throw new InvalidArgumentError("requestedBy", `must be at most ${MAX_REQUESTED_BY} characters`);
  return {
    address: queueAddress(req.queue),
    pr: prNumber(req.prNumber),
    priority: parsePriority(req.priorityValue),
    ...(by ? { by } : {}),
  };
}

export function parseCreateSettings(req: CreateQueueRequest): QueueSettings {
  const mode = wordOf(req.mode);
  return parseQueueSettings({
    ...(mode !== undefined && { mode }),
    ...(req.concurrency !== undefined && { concurrency: req.concurrency }),
  });
}

/** The fields an updateQueue request sets, in the domain's words, checked by the domain's rules. */
export function parseSettingsUpdate(req: UpdateQueueRequest): QueueSettingsPatch {
  const { queue: _queue, requiredStatuses, ...others } = req;
  const { testAware, rest } = splitTestAwareSwitches(others);
  const words: Record<string, unknown> = { ...testAware };
  // Enums come as numbers: the domain's rules refuse UNSPECIFIED naming the field, as any word they do not know.
  for (const [field, value] of Object.entries(rest)) if (value !== undefined) words[field] = value;
  if (requiredStatuses !== undefined) words.requiredStatuses = requiredStatuses.values;
  return parseSettingsPatch(words);
}

export function parseImpactedTargetsCommand(req: SetImpactedTargetsRequest): SetImpactedTargetsCommand {
  const sha = req.prSha.trim().toLowerCase();
  if (!/^[0-9a-f]{4,64}$/.test(sha)) throw new InvalidArgumentError("pr.sha", "must be a commit sha (hex)");
  const targets = req.impactedTargets?.all ? "ALL" : (req.impactedTargets?.targets ?? []);
  return {
    address: queueAddress(req.queue),
    pr: prNumber(req.prNumber),
    targets: parseImpactedTargets(sha, targets),
  };
}

export function parseRecordFacts(req: RecordPullRequestFactsRequest): RecordFactsCommand {
  return {
    org: requiredOrg(req.org),
    repo: repoRef(req.repo),
    pr: prNumber(req.number),
    facts: {
      headBranch: required("head_branch", req.headBranch),
      headSha: required("head_sha", req.headSha).toLowerCase(),
      title: req.title,
      author: req.author,
      baseBranch: required("base_branch", req.baseBranch),
      open: req.state !== HostPullRequestState.CLOSED,
    },
    merged: req.merged,
  };
}

export function parseSetConnection(req: SetRepositoryConnectionRequest): SetConnectionCommand {
  const org = requiredOrg(req.org);
  const c = req.connection;
  const repo = repoRef(c?.repo);
  const remoteUrl = required("remoteUrl", c?.remoteUrl ?? "");
  const kind = wordOf(c?.runner?.kind);
  if (kind !== RunnerKind.COMMAND && kind !== RunnerKind.EXTERNAL)
    throw new InvalidArgumentError("runner.kind", "must be COMMAND or EXTERNAL");
  const command = c?.runner?.command ?? "";
  if (kind === RunnerKind.COMMAND && !command.trim())
    throw new InvalidArgumentError("runner.command", "is required for the COMMAND runner");
  const env = c?.runner?.env ?? {};
  assertTestCommandEnv(env);
  const pullRefPattern = c?.pullRefPattern || DEFAULT_PULL_REF_PATTERN;
  if (!pullRefPattern.includes("{number}"))
    throw new InvalidArgumentError("pullRefPattern", 'must contain "{number}"');
  return {
    org,
    repo,
    connection: {
      remoteUrl,
      credentialsSecretName: c?.credentialsSecretName ?? "",
      pullRefPattern,
      runner: { kind, command, junitGlobs: c?.runner?.junitGlobs ?? [], env },
    },
  };
}

/**
 * The JUnit of a report is committed with the queue (its outbox) and published as one NATS message: base64 in
 * the stored queue, it must stay well under the server's max_payload (8 MiB as deployed).
 */
const MAX_REPORT_JUNIT_BYTES = 4 * 1024 * 1024;

export function parseReport(req: ReportTestRunResultRequest): ReportCommand {
  const junitBytes = req.junitXml.reduce((sum, xml) => sum + Buffer.byteLength(xml, "utf8"), 0);
  if (junitBytes > MAX_REPORT_JUNIT_BYTES)
    throw new InvalidArgumentError(
      "junit",
      "must total at most 4 MiB (upload larger reports with /flaky-tests/upload)",
    );
  return {
    org: requiredOrg(req.org),
    testRunId: req.testRunId,
    report: {
      passed: req.passed,
      junitXml: req.junitXml,
      ...(req.detailsUrl ? { detailsUrl: req.detailsUrl } : {}),
    },
  };
}
