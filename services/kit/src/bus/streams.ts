import {
  AckPolicy,
  DeliverPolicy,
  millis,
  nanos,
  NatsError,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from "nats";
import { FailedPreconditionError, InvalidArgumentError } from "../errors/index.js";
import { hasJsErrCode, JsErrCode, jetStreamApiError } from "./jetstream-errors.js";

/** What an idempotent provisioning call did; "unchanged" is the common case on a restart. */
export type ProvisionAction = "created" | "updated" | "unchanged";

export interface ProvisionResult<Info> {
  action: ProvisionAction;
  info: Info;
  /** The replicas the stream had when ensureStream raised them to the spec's. */
  replicasRaisedFrom?: number;
}

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
  /** "workqueue" for commands (a message leaves once acked), "limits" for events. */
  retention: "workqueue" | "limits";
  /** Omitted means messages never age out. */
  maxAgeMs?: number;
  /** Window in which a repeated `Nats-Msg-Id` is dropped; omitted keeps the server's (2 min). */
  duplicateWindowMs?: number;
  storage?: "file" | "memory";
  /**
   * Copies JetStream keeps (NATS_REPLICAS); 1 when omitted. A stream found with fewer is raised to this many
   * (never lowered), and the result says from how many (`replicasRaisedFrom`).
   */
  replicas?: number;
}

export interface ConsumerSpec {
  durable: string;
  /** Omitted: every subject of the stream. More than one subject needs nats-server 2.10+. */
  filterSubjects?: readonly string[];
  ackWaitMs: number;
  /** Deliveries before the server gives up on a message (it is then neither acked nor redelivered). */
  maxDeliver: number;
  /**
   * Redelivery delays per delivery (entry n-1 after delivery n), the last one repeating; used both
   * after an ack timeout and for a retryable handler error that names no delay. With a backoff
   * list the server takes its first entry as the ack wait and ignores `ackWaitMs`.
   */
  backoffMs?: readonly number[];
  /**
   * Messages handed out and not yet acked, at most; the server's default (1000) when omitted. 1 makes the
   * consumer strictly ordered: nothing is delivered while a message waits for its redelivery.
   */
  maxAckPending?: number;
}

/**
 * Adds the stream, or updates it when the fields this spec names differ. Retention and storage
 * cannot change on a live stream, so a difference there fails rather than silently diverging.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  spec: StreamSpec,
): Promise<ProvisionResult<StreamInfo>> {
  validateStreamSpec(spec);
  const wanted: Partial<StreamConfig> = {
    name: spec.name,
    subjects: [...spec.subjects],
    retention: spec.retention === "workqueue" ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
    storage: spec.storage === "memory" ? StorageType.Memory : StorageType.File,
    max_age: nanos(spec.maxAgeMs ?? 0),
    ...(spec.duplicateWindowMs !== undefined && { duplicate_window: nanos(spec.duplicateWindowMs) }),
  };
  // Two processes may provision the same stream at once; the loser of the add re-reads and updates.
  for (let attempt = 0; ; attempt++) {
    const current = await streamInfoOrUndefined(jsm, spec.name);
    if (current === undefined) {
      try {
        const created = { ...wanted, ...(spec.replicas !== undefined && { num_replicas: spec.replicas }) };
        return { action: "created", info: await jsm.streams.add(created) };
      } catch (error) {
        if (attempt === 0 && hasJsErrCode(error, JsErrCode.StreamNameInUse)) continue;
        throw asProvisioningError(`stream ${spec.name}`, error);
      }
    }
    const differences = streamDifferences(current.config, wanted);
    const had = current.config.num_replicas || 1;
    const raise = spec.replicas !== undefined && had < spec.replicas;
    if (differences.length === 0 && !raise) return { action: "unchanged", info: current };
    for (const immutable of ["retention", "storage"] as const) {
      if (differences.includes(immutable)) {
        throw new FailedPreconditionError(
          `stream ${spec.name}: ${immutable} is ${current.config[immutable]} and cannot change to ${wanted[immutable]}; ` +
            `delete the stream to change it`,
        );
      }
    }
    try {
      // The update merges into the current config: replicas are only named when raised, never lowered.
      const update = raise ? { ...wanted, num_replicas: spec.replicas } : wanted;
      const info = await jsm.streams.update(spec.name, update);
      return { action: "updated", info, ...(raise ? { replicasRaisedFrom: had } : {}) };
    } catch (error) {
      throw asProvisioningError(`stream ${spec.name}`, error);
    }
  }
}

/**
 * Adds the durable pull consumer (explicit ack, deliver all), or updates it when the fields this
 * spec names differ.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  spec: ConsumerSpec,
): Promise<ProvisionResult<ConsumerInfo>> {
  validateConsumerSpec(spec);
  const filters = spec.filterSubjects ?? [];
  const wanted: Partial<ConsumerConfig> = {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: spec.maxDeliver,
    backoff: (spec.backoffMs ?? []).map((ms) => nanos(ms)),
    ...(spec.maxAckPending !== undefined && { max_ack_pending: spec.maxAckPending }),
    // nats-server 2.9 knows only the single filter_subject; use it whenever it suffices.
    ...(filters.length === 1 ? { filter_subject: filters[0] } : {}),
    ...(filters.length > 1 ? { filter_subjects: [...filters] } : {}),
  };
  const result = await addOrUpdateConsumer(jsm, stream, spec.durable, wanted, true);
  // nats-server 2.9 ignores filter_subjects and would hand this consumer the whole stream.
  if (filters.length > 1 && consumerDifferences(result.info.config, wanted).includes("filter_subjects")) {
    if (result.action === "created") await jsm.consumers.delete(stream, spec.durable);
    throw new FailedPreconditionError(
      `consumer ${stream}/${spec.durable}: several filterSubjects need nats-server 2.10 or newer`,
    );
  }
  return result;
}

async function addOrUpdateConsumer(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  wanted: Partial<ConsumerConfig>,
  mayRetry: boolean,
): Promise<ProvisionResult<ConsumerInfo>> {
  const what = `consumer ${stream}/${durable}`;
  const current = await consumerInfoOrUndefined(jsm, stream, durable);
  if (current === undefined) {
    try {
      return { action: "created", info: await jsm.consumers.add(stream, wanted) };
    } catch (error) {
      const lostRace =
        hasJsErrCode(error, JsErrCode.ConsumerAlreadyExists) ||
        hasJsErrCode(error, JsErrCode.ConsumerNameExists);
      // A concurrent provisioner created it first: compare against what it wrote, once.
      if (lostRace && mayRetry) return addOrUpdateConsumer(jsm, stream, durable, wanted, false);
      throw asProvisioningError(what, error);
    }
  }
  const differences = consumerDifferences(current.config, wanted);
  if (differences.length === 0) return { action: "unchanged", info: current };
  for (const immutable of ["ack_policy", "deliver_policy"] as const) {
    if (differences.includes(immutable)) {
      throw new FailedPreconditionError(
        `${what}: ${immutable} is ${current.config[immutable]}, not ${wanted[immutable]}; delete the consumer to change it`,
      );
    }
  }
  try {
    return { action: "updated", info: await jsm.consumers.update(stream, durable, wanted) };
  } catch (error) {
    throw asProvisioningError(what, error);
  }
}

function streamDifferences(current: StreamConfig, wanted: Partial<StreamConfig>): string[] {
  const differences: string[] = [];
  if (!sameSet(current.subjects, wanted.subjects ?? [])) differences.push("subjects");
  if (current.retention !== wanted.retention) differences.push("retention");
  if (current.storage !== wanted.storage) differences.push("storage");
  if (current.max_age !== wanted.max_age) differences.push("max_age");
  if (wanted.duplicate_window !== undefined && current.duplicate_window !== wanted.duplicate_window) {
    differences.push("duplicate_window");
  }
  return differences;
}

function consumerDifferences(current: ConsumerConfig, wanted: Partial<ConsumerConfig>): string[] {
  const differences: string[] = [];
  const currentFilters = current.filter_subjects ?? (current.filter_subject ? [current.filter_subject] : []);
  const wantedFilters = wanted.filter_subjects ?? (wanted.filter_subject ? [wanted.filter_subject] : []);
  if (!sameSet(currentFilters, wantedFilters)) differences.push("filter_subjects");
  if (current.ack_policy !== wanted.ack_policy) differences.push("ack_policy");
  if (current.deliver_policy !== wanted.deliver_policy) differences.push("deliver_policy");
  if (current.max_deliver !== wanted.max_deliver) differences.push("max_deliver");
  if (!sameList(current.backoff ?? [], wanted.backoff ?? [])) differences.push("backoff");
  if (wanted.max_ack_pending !== undefined && current.max_ack_pending !== wanted.max_ack_pending)
    differences.push("max_ack_pending");
  // With a backoff list the server takes ack_wait from its first entry, so only compare without one.
  if ((wanted.backoff ?? []).length === 0 && current.ack_wait !== wanted.ack_wait)
    differences.push("ack_wait");
  return differences;
}

async function streamInfoOrUndefined(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (hasJsErrCode(error, JsErrCode.StreamNotFound)) return undefined;
    throw error;
  }
}

async function consumerInfoOrUndefined(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, durable);
  } catch (error) {
    if (hasJsErrCode(error, JsErrCode.ConsumerNotFound)) return undefined;
    if (hasJsErrCode(error, JsErrCode.StreamNotFound)) {
      throw new FailedPreconditionError(`consumer ${stream}/${durable}: stream ${stream} does not exist`);
    }
    throw error;
  }
}

/**
 * A refusal by the JetStream API, or by nats.js's own check of what the server supports, is a
 * configuration problem that retrying never fixes. Transport errors (NatsError) pass unchanged.
 */
function asProvisioningError(what: string, error: unknown): unknown {
  const apiError = jetStreamApiError(error);
  if (apiError !== undefined) {
    return new FailedPreconditionError(`${what}: ${apiError.description} (err_code ${apiError.err_code})`, {
      cause: error,
    });
  }
  if (error instanceof Error && !(error instanceof NatsError)) {
    return new FailedPreconditionError(`${what}: ${error.message}`, { cause: error });
  }
  return error;
}

// JetStream names become subject tokens: no dots, wildcards or whitespace.
const NAME = /^[^.*>\s/\\]+$/;

function validateStreamSpec(spec: StreamSpec): void {
  if (!NAME.test(spec.name))
    throw new InvalidArgumentError("name", "a non-empty name without . * > / \\ or spaces");
  if (spec.subjects.length === 0) throw new InvalidArgumentError("subjects", "at least one subject");
  if (spec.subjects.some((s) => s.trim() === "" || /\s/.test(s))) {
    throw new InvalidArgumentError("subjects", "subjects are non-empty and contain no spaces");
  }
  checkDuration("maxAgeMs", spec.maxAgeMs, true);
  checkDuration("duplicateWindowMs", spec.duplicateWindowMs, false);
}

function validateConsumerSpec(spec: ConsumerSpec): void {
  if (!NAME.test(spec.durable)) {
    throw new InvalidArgumentError("durable", "a non-empty name without . * > / \\ or spaces");
  }
  if (spec.filterSubjects?.some((s) => s.trim() === "" || /\s/.test(s))) {
    throw new InvalidArgumentError("filterSubjects", "subjects are non-empty and contain no spaces");
  }
  checkDuration("ackWaitMs", spec.ackWaitMs, false);
  if (!Number.isInteger(spec.maxDeliver) || spec.maxDeliver < 1) {
    throw new InvalidArgumentError("maxDeliver", "a positive integer");
  }
  if (spec.maxAckPending !== undefined && (!Number.isInteger(spec.maxAckPending) || spec.maxAckPending < 1)) {
    throw new InvalidArgumentError("maxAckPending", "a positive integer");
  }
  const backoff = spec.backoffMs ?? [];
  backoff.forEach((ms, i) => checkDuration(`backoffMs[${i}]`, ms, false));
  if (backoff.length > 0 && spec.maxDeliver <= backoff.length) {
    throw new InvalidArgumentError("backoffMs", "fewer entries than maxDeliver");
  }
}

function checkDuration(field: string, ms: number | undefined, zeroAllowed: boolean): void {
  if (ms === undefined) return;
  if (!Number.isInteger(ms) || ms < 0 || (!zeroAllowed && ms === 0)) {
    throw new InvalidArgumentError(
      field,
      zeroAllowed ? "a whole number of milliseconds >= 0" : "a whole number of milliseconds > 0",
    );
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((s) => left.has(s));
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Backoff of a consumer's config in milliseconds (the server stores nanoseconds). */
export function backoffMsOf(config: ConsumerConfig): number[] {
  return (config.backoff ?? []).map((ns) => millis(ns));
}
