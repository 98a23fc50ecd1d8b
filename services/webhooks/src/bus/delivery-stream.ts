import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  NatsError,
  type JetStreamClient,
  type JetStreamManager,
  type ConsumerConfig,
} from "nats";
import { publish, type Replication, type StreamSpec } from "@mainline/kit/bus/index";
import { ensureReplicatedStream } from "@mainline/kit/streams/index";
import { DeliveryJob } from "@mainline/proto/webhooks";

/**
 * The durable queue of deliveries: one subject per subscription, one durable consumer per subscription
 * that holds at most one unacknowledged job. A job being retried therefore blocks the ones behind it, so
 * events reach a receiver in the order they happened, and the queue lives in JetStream, so a restart
 * loses nothing. Work-queue retention: a delivered job leaves the stream.
 */
export const DELIVERY_STREAM: StreamSpec = {
  name: "WEBHOOK_DELIVERIES",
  subjects: ["mainline.webhooks.deliveries.*"],
  retention: "workqueue",
  // A subscription disabled for longer than this loses its held events.
  maxAgeMs: 14 * 24 * 3_600_000,
  duplicateWindowMs: 10 * 60_000,
};

const CONSUMER_NOT_FOUND = 10014;

export function deliverySubject(subscriptionId: string): string {
  return `mainline.webhooks.deliveries.${subscriptionId}`;
}

export function deliveryConsumerName(subscriptionId: string): string {
  return `webhooks-${subscriptionId}`;
}

export async function provisionDeliveryStream(
  jsm: JetStreamManager,
  replication?: Replication,
): Promise<void> {
  await ensureReplicatedStream(jsm, DELIVERY_STREAM, replication);
}

/**
 * Adds (or updates) the subscription's consumer. Not kit's ensureConsumer: ordering needs
 * max_ack_pending 1, and retries are counted by the delivery log, so the server never gives up on a
 * job by itself (max_deliver -1).
 */
export async function ensureDeliveryConsumer(
  jsm: JetStreamManager,
  subscriptionId: string,
  ackWaitMs: number,
): Promise<void> {
  const durable = deliveryConsumerName(subscriptionId);
  const wanted: Partial<ConsumerConfig> = {
    durable_name: durable,
    filter_subject: deliverySubject(subscriptionId),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(ackWaitMs),
    max_deliver: -1,
    max_ack_pending: 1,
  };
  try {
    const current = await jsm.consumers.info(DELIVERY_STREAM.name, durable);
    if (current.config.ack_wait !== wanted.ack_wait || current.config.max_ack_pending !== 1) {
      await jsm.consumers.update(DELIVERY_STREAM.name, durable, wanted);
    }
  } catch (error) {
    if (!(error instanceof NatsError) || error.jsError()?.err_code !== CONSUMER_NOT_FOUND) throw error;
    await jsm.consumers.add(DELIVERY_STREAM.name, wanted);
  }
}

/** Removes the consumer and every job still queued for the subscription. */
export async function removeDeliveryQueue(jsm: JetStreamManager, subscriptionId: string): Promise<void> {
  await jsm.consumers.delete(DELIVERY_STREAM.name, deliveryConsumerName(subscriptionId)).catch(() => false);
  await jsm.streams.purge(DELIVERY_STREAM.name, { filter: deliverySubject(subscriptionId) });
}

/** Queues a job; its webhook-id is the Nats-Msg-Id, so fanning the same event out twice queues it once. */
export async function enqueueDelivery(js: JetStreamClient, job: DeliveryJob): Promise<void> {
  await publish(js, deliverySubject(job.subscriptionId), DeliveryJob, job, { msgId: job.webhookId });
}
