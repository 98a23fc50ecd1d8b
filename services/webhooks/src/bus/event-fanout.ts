import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, ensureConsumer, type ConsumerHandle, type MessageCodec } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import {
  BatchLifecycleEvent,
  PullRequestLifecycleEvent,
  QueueLifecycleEvent,
  TestRunLifecycleEvent,
} from "@mainline/proto/queue";
import { TestStatusChanged } from "@mainline/proto/flaky";
import { filterAccepts } from "../domain/event-types.js";
import { webhookIdOf } from "../domain/signing.js";
import {
  batchWebhookEvent,
  pullRequestWebhookEvent,
  queueWebhookEvent,
  testRunWebhookEvent,
  testStatusWebhookEvent,
  type WebhookEvent,
} from "../domain/webhook-event.js";
import type { SubscriptionRepository } from "../store/subscription-repository.js";
import { enqueueDelivery } from "./delivery-stream.js";

const FANOUT_DURABLE = "webhooks-fanout";

// The payload is decoded per subject in the handler: one consumer over the whole events stream keeps the
// events in the order they were published (nats-server 2.9 allows one filter subject per consumer).
const RAW: MessageCodec<Uint8Array> = { encode: (m) => ({ finish: () => m }), decode: (b) => b };

const DECODERS: Record<string, (bytes: Uint8Array) => WebhookEvent | undefined> = {
  [SUBJECTS.pullRequestEvent]: (b) => pullRequestWebhookEvent(PullRequestLifecycleEvent.decode(b)),
  [SUBJECTS.batchEvent]: (b) => batchWebhookEvent(BatchLifecycleEvent.decode(b)),
  [SUBJECTS.testRunEvent]: (b) => testRunWebhookEvent(TestRunLifecycleEvent.decode(b)),
  [SUBJECTS.testStatusEvent]: (b) => testStatusWebhookEvent(TestStatusChanged.decode(b)),
  [SUBJECTS.queueEvent]: (b) => queueWebhookEvent(QueueLifecycleEvent.decode(b)),
};

/**
 * One event handed out at a time across every replica (max ack pending 1): two replicas fanning out events at once
 * would queue a later event's jobs before an earlier one's, and a receiver would get them out of order.
 */
export async function provisionFanoutConsumer(jsm: JetStreamManager, ackWaitMs: number): Promise<void> {
  await ensureConsumer(jsm, STREAMS.events.name, {
    durable: FANOUT_DURABLE,
    filterSubjects: ["mainline.events.>"],
    ackWaitMs,
    maxDeliver: 1000,
    maxAckPending: 1,
  });
}

/**
 * Turns each lifecycle event into one delivery job per enabled subscription of its organisation whose
 * filter accepts it. The event is acked only once every job is stored, and a redelivered event queues
 * nothing twice (the job's Nats-Msg-Id is its webhook-id), so no subscription misses an event.
 */
export function startEventFanout(options: {
  js: JetStreamClient;
  subscriptions: SubscriptionRepository;
  logger: Logger;
}): Promise<ConsumerHandle> {
  return consume({
    js: options.js,
    stream: STREAMS.events.name,
    durable: FANOUT_DURABLE,
    codec: RAW,
    logger: options.logger,
    async handler({ data, subject }) {
      let event: WebhookEvent | undefined;
      try {
        event = DECODERS[subject]?.(data);
      } catch (error) {
        // No redelivery decodes better; acking keeps the events behind it flowing.
        options.logger.error({ err: error, subject }, "undecodable event skipped");
        return;
      }
      if (event === undefined) return;
      const targets = await options.subscriptions.enabledOf(event.org);
      const body = JSON.stringify(event.payload);
      for (const subscription of targets) {
        if (!filterAccepts(subscription.eventTypes, event.type)) continue;
        await enqueueDelivery(options.js, {
          webhookId: webhookIdOf(subscription._id, event.eventId),
          subscriptionId: subscription._id,
          org: event.org,
          eventType: event.type,
          eventId: event.eventId,
          body,
          createdAt: new Date(),
        });
      }
    },
  });
}
