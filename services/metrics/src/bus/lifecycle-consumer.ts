import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, ensureConsumer, type ConsumerHandle, type MessageCodec } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { TestStatusChanged } from "@mainline/proto/flaky";
import { PullRequestLifecycleEvent, TestRunLifecycleEvent } from "@mainline/proto/queue";
import type { MetricsState } from "../app/metrics-state.js";
import { testRunFactOf, testStatusFactOf, transitionOf } from "./lifecycle-decoding.js";

export const LIFECYCLE_DURABLE = "metrics-lifecycle";

// Decoded per subject in the handler: one consumer over the whole events stream sees them in publish order.
const RAW: MessageCodec<Uint8Array> = { encode: (m) => ({ finish: () => m }), decode: (b) => b };

/**
 * One message at a time (max ack pending 1): a PR's transitions are applied in the order they happened even
 * when one waits for its redelivery, which the timelines' durations rely on.
 */
export async function provisionLifecycleConsumer(jsm: JetStreamManager, ackWaitMs: number): Promise<void> {
  await ensureConsumer(jsm, STREAMS.events.name, {
    durable: LIFECYCLE_DURABLE,
    filterSubjects: ["mainline.events.>"],
    ackWaitMs,
    maxDeliver: 100,
    maxAckPending: 1,
  });
}

type Apply = (state: MetricsState, data: Uint8Array, seq: number, now: number) => Promise<void> | undefined;

const APPLY: Record<string, Apply> = {
  [SUBJECTS.pullRequestEvent]: (state, data, seq, now) => {
    const transition = transitionOf(PullRequestLifecycleEvent.decode(data));
    return transition && state.applyTransition(transition, seq, now);
  },
  [SUBJECTS.testRunEvent]: (state, data, seq, now) => {
    const fact = testRunFactOf(TestRunLifecycleEvent.decode(data));
    return fact && state.applyTestRun(fact, seq, now);
  },
  [SUBJECTS.testStatusEvent]: (state, data, seq) => {
    const fact = testStatusFactOf(TestStatusChanged.decode(data));
    return fact && state.applyTestStatus(fact, seq);
  },
};

/** Feeds the lifecycle events into the state. Batch and queue notices carry nothing the metrics need. */
export function startLifecycleConsumer(options: {
  js: JetStreamClient;
  state: MetricsState;
  clock: () => number;
  logger: Logger;
}): Promise<ConsumerHandle> {
  return consume({
    js: options.js,
    stream: STREAMS.events.name,
    durable: LIFECYCLE_DURABLE,
    codec: RAW,
    logger: options.logger,
    retryDelayMs: 2_000,
    async handler({ data, subject, streamSequence }) {
      const apply = APPLY[subject];
      if (apply === undefined) return;
      let applying: Promise<void> | undefined;
      try {
        applying = apply(options.state, data, streamSequence, options.clock());
      } catch (error) {
        // No redelivery decodes better; acking keeps the events behind it flowing.
        options.logger.error({ err: error, subject }, "undecodable lifecycle event skipped");
        return;
      }
      // A store failure, or a record another replica changed meanwhile, propagates: the message is redelivered
      // and applied again, idempotently, to the record as it is now.
      await applying;
    },
  });
}
