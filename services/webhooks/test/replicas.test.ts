import { expect } from "chai";
import { connect } from "nats";
import { callUnary } from "@mainline/kit/grpc/index";
import { enqueueDelivery } from "../src/bus/delivery-stream.js";
import { webhookIdOf } from "../src/domain/signing.js";
import type { DeliveryRecord } from "../src/store/delivery-log.js";
import { eventually, WebhookReceiver, type Arrival } from "./support/webhook-receiver.js";
import { newSecret, WebhooksFixture } from "./support/webhooks-fixture.js";

/** Arrivals per webhook-id, in arrival order. */
function byWebhookId(arrivals: readonly Arrival[]): Map<string, Arrival[]> {
  const grouped = new Map<string, Arrival[]>();
  for (const a of arrivals) grouped.set(a.webhookId, [...(grouped.get(a.webhookId) ?? []), a]);
  return grouped;
}

/**
 * Two replicas of the webhooks service on one nats-server and store (DESIGN rule 5): a subscription's jobs are
 * taken through one durable consumer holding one job at a time, and attempts are counted in the shared delivery
 * log, so a delivery is made once whichever replica takes it, and a dead replica's retries go on elsewhere.
 */
describe("webhooks in two replicas", function () {
  this.timeout(60_000);
  let f: WebhooksFixture;
  let r: WebhookReceiver;

  beforeEach(async () => {
    f = await WebhooksFixture.start();
    r = await WebhookReceiver.start(newSecret());
  });
  afterEach(async () => {
    await r.stop();
    await f.stop();
  });

  const subscribe = async (): Promise<string> => {
    const created = await callUnary(f.api.createSubscription.bind(f.api), {
      org: "acme",
      url: r.url,
      eventTypes: [],
      secret: r.secret,
    });
    const id = created.subscription?.id;
    if (!id) throw new Error("no subscription id");
    return id;
  };

  it("delivers each webhook-id once, in the order of the events, both replicas consuming", async () => {
    await subscribe();
    // Started after the subscription exists, the second replica runs its consumer from the start.
    await f.startInstance();
    for (let n = 1; n <= 20; n++) await f.publishPullRequestEvent({ prNumber: n });

    await eventually("twenty events accepted", () => r.accepted.length >= 20, 20_000);
    // Longer than the ack wait (1 s): a job delivered twice would have arrived again by now.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(r.rejected).to.deep.equal([]);
    expect(r.arrivals).to.have.length(20);
    expect(byWebhookId(r.arrivals).size).to.equal(20);
    expect(r.arrivals.map((a) => a.payload.pr_number)).to.deep.equal([...Array(20).keys()].map((i) => i + 1));
  });

  it("finishes the retries of a replica killed mid-retry on the other replica", async () => {
    await subscribe();
    // Event 1 fails at its first attempt; the retry reaches the receiver and hangs while its replica is killed.
    let arrivalsOfFirst = 0;
    r.respond = (a) => {
      if (a.payload.pr_number !== 1) return 200;
      arrivalsOfFirst += 1;
      return arrivalsOfFirst === 1 ? 500 : arrivalsOfFirst === 2 ? "hang" : 200;
    };
    for (let n = 1; n <= 3; n++) await f.publishPullRequestEvent({ prNumber: n });
    await eventually("event 1 retried and in flight", () => arrivalsOfFirst === 2);

    await f.startInstance();
    await f.crash(0);
    expect(f.replicas).to.equal(1);

    await eventually("three events accepted", () => r.accepted.length >= 3, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const arrivals = byWebhookId(r.arrivals);
    expect([...arrivals.values()].map((list) => list.map((a) => a.answered))).to.deep.equal([
      [500, "hang", 200],
      [200],
      [200],
    ]);
    // The surviving replica counted on from the attempts the killed one recorded (the hung one never was).
    const [first] = arrivals.keys();
    const log = await f
      .store(0)
      .collection<DeliveryRecord>("deliveries")
      .find({ webhookId: first }, { sort: { attempt: 1 } });
    expect(log.map((entry) => [entry.attempt, entry.succeeded])).to.deep.equal([
      [1, false],
      [2, true],
    ]);
  });

  it("does not send again a delivery whose success a replica recorded before dying unacked", async () => {
    const subscriptionId = await subscribe();
    // The state a replica leaves when it dies between the receiver's 2xx being logged and the job's ack: the
    // success is in the shared log, and JetStream hands the job to the next replica after the ack wait.
    const delivered = webhookIdOf(subscriptionId, "event-delivered-before-death");
    await f.store(0).collection<DeliveryRecord>("deliveries").insertOne({
      org: "acme",
      subscriptionId,
      webhookId: delivered,
      eventType: "pull_request.queued",
      time: new Date(),
      attempt: 1,
      statusCode: 200,
      durationMs: 3,
      succeeded: true,
    });
    const nc = await connect(f.nats.connectOptions());
    try {
      for (const eventId of ["event-delivered-before-death", "event-after"]) {
        await enqueueDelivery(nc.jetstream(), {
          webhookId: webhookIdOf(subscriptionId, eventId),
          subscriptionId,
          org: "acme",
          eventType: "pull_request.queued",
          eventId,
          body: JSON.stringify({ event: eventId }),
          createdAt: new Date(),
        });
      }
    } finally {
      await nc.close();
    }
    await eventually("the next event accepted", () => r.accepted.length >= 1, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(r.arrivals.map((a) => a.payload.event)).to.deep.equal(["event-after"]);
  });
});
