import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import {
  ConsumerEvents,
  millis,
  type ConsumerMessages,
  type JetStreamClient,
  type JsMsg,
  type MsgHdrs,
} from "nats";
import { InvalidArgumentError, isRetryable, retryDelayMs } from "../errors/index.js";
import { consoleBusLogger, type BusLogger } from "./bus-logger.js";
import type { MessageCodec } from "./codec.js";
import { retryDelayForDelivery } from "./retry-delay.js";
import { backoffMsOf } from "./streams.js";
import { failSpan } from "../telemetry/in-span.js";
import { busTracer, MessagingAttr } from "./telemetry.js";
import { msgHdrsGetter } from "./trace-headers.js";

/** One delivery of a message to a handler. */
export interface Delivery<T> {
  data: T;
  subject: string;
  /** The publisher's `Nats-Msg-Id`: the key for idempotent handling. */
  msgId: string | undefined;
  /** 1 on first delivery; above 1 the message was redelivered (a handler may have run before). */
  deliveryCount: number;
  /** The message's sequence in its stream: orders messages, the same on every redelivery. */
  streamSequence: number;
  headers: MsgHdrs | undefined;
  /** When the message was stored in its stream (the same on every redelivery): how long it has been waiting. */
  publishedAt?: Date;
}

/**
 * Handles one message. Returning acks it. Throwing a terminal error (`isRetryable(err)` false)
 * ends the message for good; throwing anything else has it redelivered after a delay.
 */
export type DeliveryHandler<T> = (delivery: Delivery<T>) => Promise<void>;

export interface ConsumeOptions<T> {
  js: JetStreamClient;
  stream: string;
  durable: string;
  codec: MessageCodec<T>;
  handler: DeliveryHandler<T>;
  /** Handlers running at once; also how many messages are pulled ahead. Default 1. */
  concurrency?: number;
  logger?: BusLogger;
  /** Redelivery delay for a retryable error when the consumer has no backoff list. Default 1000 ms. */
  retryDelayMs?: number;
}

export interface ConsumerHandle {
  /** Stops pulling, hands back pulled-but-unstarted messages, and waits for running handlers. */
  stop(): Promise<void>;
  /** Settles when consumption ends: undefined after stop(), the error when the pull loop failed. */
  readonly closed: Promise<Error | undefined>;
}

/**
 * Runs a durable pull consumer (provisioned beforehand with ensureConsumer). Each message is
 * decoded, handled inside a CONSUMER span that continues the publisher's trace, then acked,
 * terminated or nak'ed with a delay according to the handler's error.
 */
export async function consume<T>(options: ConsumeOptions<T>): Promise<ConsumerHandle> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new InvalidArgumentError("concurrency", "a positive integer");
  }
  const logger = options.logger ?? consoleBusLogger;
  const consumer = await options.js.consumers.get(options.stream, options.durable);
  const { config } = await consumer.info(true);
  const settings: DeliverySettings = {
    backoffMs: backoffMsOf(config),
    fallbackDelayMs: options.retryDelayMs ?? 1000,
    maxDeliver: config.max_deliver ?? -1,
    // Renewing the ack deadline well inside ack_wait keeps a slow handler's message from being
    // handed to another consumer while it still runs; a dead process stops renewing.
    workingEveryMs: Math.max(50, Math.floor(millis(config.ack_wait ?? 30_000_000_000) / 2)),
  };
  // Pulling no more than we can run keeps messages from waiting in a buffer while ack_wait runs.
  const messages = await consumer.consume({ max_messages: concurrency });
  watchStatus(messages, options, logger);

  const running = new Set<Promise<void>>();
  let stopping = false;
  const loop = (async (): Promise<Error | undefined> => {
    try {
      for await (const msg of messages) {
        while (running.size >= concurrency) await Promise.race(running);
        if (stopping) {
          // Pulled but never started: give it back now instead of after ack_wait (if the
          // connection is already gone, the server redelivers after ack_wait anyway).
          settler(msg, { subject: msg.subject, stream: options.stream }, logger)("nak");
          continue;
        }
        const run: Promise<void> = handleDelivery(msg, options, settings, logger).finally(() =>
          running.delete(run),
        );
        running.add(run);
      }
      return undefined;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (!stopping) {
        logger.error(
          { err: failure, stream: options.stream, durable: options.durable },
          "bus consumer stopped",
        );
      }
      return failure;
    } finally {
      await Promise.all(running);
    }
  })();

  return {
    closed: loop,
    async stop() {
      stopping = true;
      // close() resolves only once the loop has drained the buffer, so it is not awaited here.
      void messages.close();
      await loop;
    },
  };
}

interface DeliverySettings {
  backoffMs: number[];
  fallbackDelayMs: number;
  maxDeliver: number;
  workingEveryMs: number;
}

async function handleDelivery<T>(
  msg: JsMsg,
  options: ConsumeOptions<T>,
  settings: DeliverySettings,
  logger: BusLogger,
): Promise<void> {
  const deliveryCount = msg.info.deliveryCount;
  const msgId = msg.headers?.get("Nats-Msg-Id") || undefined;
  const where = {
    subject: msg.subject,
    msgId,
    deliveryCount,
    stream: options.stream,
    durable: options.durable,
  };
  const parent = propagation.extract(ROOT_CONTEXT, msg.headers, msgHdrsGetter);
  const span = busTracer().startSpan(
    `${msg.subject} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        [MessagingAttr.system]: "nats",
        [MessagingAttr.destination]: msg.subject,
        [MessagingAttr.operation]: "process",
        [MessagingAttr.consumerGroup]: options.durable,
        [MessagingAttr.deliveryCount]: deliveryCount,
        ...(msgId !== undefined && { [MessagingAttr.messageId]: msgId }),
      },
    },
    parent,
  );
  const settle = settler(msg, where, logger);
  const working = setInterval(() => settle("working"), settings.workingEveryMs);
  try {
    let data: T;
    try {
      data = options.codec.decode(msg.data);
    } catch (error) {
      // No delivery will decode better than this one.
      settle("term");
      failSpan(span, error);
      logger.error({ ...where, err: error }, "bus message could not be decoded; terminated");
      return;
    }
    await context.with(trace.setSpan(parent, span), () =>
      options.handler({
        data,
        subject: msg.subject,
        msgId,
        deliveryCount,
        streamSequence: msg.info.streamSequence,
        headers: msg.headers,
        publishedAt: new Date(Math.floor(msg.info.timestampNanos / 1_000_000)),
      }),
    );
    settle("ack");
  } catch (error) {
    failSpan(span, error);
    if (!isRetryable(error)) {
      settle("term");
      logger.error({ ...where, err: error }, "bus handler failed terminally; message terminated");
    } else if (settings.maxDeliver > 0 && deliveryCount >= settings.maxDeliver) {
      settle("term");
      logger.error(
        { ...where, err: error },
        "bus handler failed on the last allowed delivery; message dropped",
      );
    } else {
      const delayMs = retryDelayMs(
        error,
        retryDelayForDelivery(settings.backoffMs, deliveryCount, settings.fallbackDelayMs),
      );
      settle("nak", delayMs);
      logger.warn({ ...where, err: error, delayMs }, "bus handler failed; message will be redelivered");
    }
  } finally {
    clearInterval(working);
    span.end();
  }
}

/**
 * Acks and friends write to the connection; once it is closed they throw. The message is then in
 * the server's hands (redelivered after ack_wait), so the failure is logged, not propagated.
 */
function settler(msg: JsMsg, where: object, logger: BusLogger) {
  return (action: "ack" | "nak" | "term" | "working", delayMs?: number): void => {
    try {
      if (action === "nak") msg.nak(delayMs);
      else msg[action]();
    } catch (error) {
      if (action !== "working") logger.warn({ ...where, err: error, action }, "bus could not settle message");
    }
  };
}

// Notices that mean this consumer gets no messages for now; the rest are debug chatter.
const WORTH_A_WARNING = new Set<string>([
  ConsumerEvents.HeartbeatsMissed,
  ConsumerEvents.ConsumerNotFound,
  ConsumerEvents.StreamNotFound,
  ConsumerEvents.ConsumerDeleted,
  ConsumerEvents.NoResponders,
]);

/** One warning per kind of notice in this window: a stream without a leader yet answers every pull at once. */
const STATUS_WARNING_WINDOW_MS = 10_000;

function watchStatus<T>(messages: ConsumerMessages, options: ConsumeOptions<T>, logger: BusLogger): void {
  const warned = new Map<string, { at: number; since: number }>();
  void (async () => {
    for await (const status of await messages.status()) {
      if (!WORTH_A_WARNING.has(status.type)) continue;
      const now = Date.now();
      const last = warned.get(status.type);
      if (last !== undefined && now - last.at < STATUS_WARNING_WINDOW_MS) {
        last.since++;
        continue;
      }
      logger.warn(
        {
          stream: options.stream,
          durable: options.durable,
          status: status.type,
          data: status.data,
          ...(last?.since ? { repeatedSinceLastWarning: last.since } : {}),
        },
        "bus consumer status",
      );
      warned.set(status.type, { at: now, since: 0 });
    }
  })().catch(() => undefined);
}
