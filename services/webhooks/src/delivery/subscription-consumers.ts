import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, type ConsumerHandle } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import { DeliveryJob } from "@mainline/proto/webhooks";
import type { Subscription } from "../domain/subscription.js";
import { DELIVERY_STREAM, deliveryConsumerName, ensureDeliveryConsumer } from "../bus/delivery-stream.js";
import type { DeliveryWorker } from "./delivery-worker.js";

/**
 * Runs one JetStream consumer per enabled subscription (each holds one job at a time, see
 * delivery-stream.ts). Reconciled against the store on start, on every change made here, and
 * periodically, so a subscription created or re-enabled through another replica is picked up too.
 */
export class SubscriptionConsumers {
  private readonly running = new Map<string, Promise<ConsumerHandle>>();
  private stopped = false;

  constructor(
    private readonly options: {
      js: JetStreamClient;
      jsm: JetStreamManager;
      worker: () => DeliveryWorker;
      ackWaitMs: number;
      logger: Logger;
    },
  ) {}

  async reconcile(all: readonly Subscription[]): Promise<void> {
    const wanted = new Set(all.filter((s) => !s.disabled).map((s) => s._id));
    for (const id of wanted) await this.start(id);
    for (const id of [...this.running.keys()]) if (!wanted.has(id)) await this.stop(id);
  }

  async start(subscriptionId: string): Promise<void> {
    if (this.stopped || this.running.has(subscriptionId)) return;
    const { js, jsm, ackWaitMs, logger } = this.options;
    const handle = (async () => {
      await ensureDeliveryConsumer(jsm, subscriptionId, ackWaitMs);
      return consume({
        js,
        stream: DELIVERY_STREAM.name,
        durable: deliveryConsumerName(subscriptionId),
        codec: DeliveryJob,
        logger,
        handler: ({ data }) => this.options.worker().deliver(data),
      });
    })();
    this.running.set(subscriptionId, handle);
    try {
      await handle;
    } catch (error) {
      this.running.delete(subscriptionId);
      throw error;
    }
  }

  async stop(subscriptionId: string): Promise<void> {
    const handle = this.running.get(subscriptionId);
    if (handle === undefined) return;
    this.running.delete(subscriptionId);
    await (await handle.catch(() => undefined))?.stop();
  }

  async stopAll(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.running.keys()].map((id) => this.stop(id)));
  }
}
