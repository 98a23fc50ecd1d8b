import { expect } from "chai";
import { connect } from "nats";
import { callUnary } from "@mainline/kit/grpc/index";
import { openStore } from "@mainline/kit/store/index";
import type {
  CreateSubscriptionRequest,
  Subscription as SubscriptionMessage,
} from "@mainline/proto/webhooks";
import type { Subscription } from "../src/domain/subscription.js";
import { eventually, WebhookReceiver } from "./support/webhook-receiver.js";
import { newSecret, WebhooksFixture } from "./support/webhooks-fixture.js";

/**
 * A client that retries a create after a timeout, or whose retry another replica handles (DESIGN rule 5), gets
 * the subscription its first call made: the store's unique content key decides, across processes.
 */
describe("webhooks: a retried subscription create", function () {
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

  const createOn = async (replica: number, request: Partial<CreateSubscriptionRequest>) => {
    const client = f.clientOf(replica);
    try {
      const answer = await callUnary(client.createSubscription.bind(client), {
        org: "acme",
        url: r.url,
        eventTypes: [],
        ...request,
      });
      if (!answer.subscription) throw new Error("no subscription in the answer");
      return answer.subscription;
    } finally {
      client.close();
    }
  };
  const listed = async (): Promise<SubscriptionMessage[]> =>
    (await callUnary(f.api.listSubscriptions.bind(f.api), { org: "acme" })).subscriptions;

  it("makes one subscription of the same create sent to two replicas at once, and delivers once", async () => {
    await f.startInstance();
    const request = { eventTypes: ["pull_request.merged", "pull_request.queued"], description: "CI bot" };
    const answers = await Promise.all([
      createOn(0, request),
      createOn(1, { ...request, eventTypes: ["pull_request.queued", "pull_request.merged"] }),
    ]);
    expect(answers[0].id).to.equal(answers[1].id);
    // The retry's first answer, with the generated secret, may never have arrived: it gets the secret again.
    expect(answers[0].secret).to.match(/^whsec_/);
    expect(answers[1].secret).to.equal(answers[0].secret);
    expect((await listed()).map((s) => s.id)).to.deep.equal([answers[0].id]);

    r.secret = answers[0].secret;
    await f.publishPullRequestEvent({ prNumber: 7 });
    await eventually("the event delivered", () => r.accepted.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(r.arrivals).to.have.length(1);
  });

  it("still makes another subscription for another event set, description or chosen secret", async () => {
    await f.startInstance();
    const secret = newSecret();
    const first = await createOn(0, { eventTypes: ["pull_request.merged"], secret });
    const again = await createOn(1, { eventTypes: ["pull_request.merged"], secret });
    expect(again.id).to.equal(first.id);
    const others = [
      await createOn(1, { eventTypes: ["pull_request.merged", "pull_request.failed"], secret }),
      await createOn(0, { eventTypes: ["pull_request.merged"], secret, description: "staging" }),
      // Rotating the secret: a new subscription beside the old one, which is deleted afterwards.
      await createOn(1, { eventTypes: ["pull_request.merged"], secret: newSecret() }),
      await createOn(0, { eventTypes: ["pull_request.merged"] }),
    ];
    const ids = [first.id, ...others.map((s) => s.id)];
    expect(new Set(ids).size).to.equal(5);
    expect((await listed()).map((s) => s.id).sort()).to.deep.equal([...ids].sort());
  });

  it("makes a new subscription after the same one was deleted", async () => {
    const first = await createOn(0, { eventTypes: ["pull_request.merged"] });
    await callUnary(f.api.deleteSubscription.bind(f.api), { org: "acme", subscriptionId: first.id });
    const second = await createOn(0, { eventTypes: ["pull_request.merged"] });
    expect(second.id).not.to.equal(first.id);
    expect((await listed()).map((s) => s.id)).to.deep.equal([second.id]);
  });

  it("keeps subscriptions stored before content keys existed, even identical ones", async () => {
    const legacy = (n: number): Subscription => {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n));
      return {
        _id: `whs_legacy${n}AAAAAAAAAAAA`,
        org: "acme",
        url: r.url,
        eventTypes: [],
        secret: r.secret,
        disabled: false,
        disabledReason: "",
        createdAt: at,
        enabledAt: at,
      } as Omit<Subscription, "contentKey"> as Subscription;
    };
    // Written as an earlier version did, with no replica holding the content key's unique index.
    await f.crash(0);
    const nc = await connect(f.nats.connectOptions());
    const earlier = await openStore({ database: "mainline-webhooks", nats: nc });
    await earlier.collection<Subscription>("subscriptions").insertMany([legacy(1), legacy(2)]);
    await earlier.close();
    await nc.close();
    await f.startInstance();
    expect((await listed()).map((s) => s.id)).to.deep.equal([legacy(1)._id, legacy(2)._id]);
    const made = await createOn(0, { secret: r.secret });
    expect((await listed()).map((s) => s.id)).to.deep.equal([legacy(1)._id, legacy(2)._id, made.id]);
  });
});
