import { expect } from "chai";
import { callUnary } from "@mainline/kit/grpc/index";
import { eventually, WebhookReceiver } from "./support/webhook-receiver.js";
import { newSecret, WebhooksFixture } from "./support/webhooks-fixture.js";

describe("webhooks: a crash mid-delivery loses nothing", function () {
  let f: WebhooksFixture;
  let r: WebhookReceiver;

  before(async () => {
    f = await WebhooksFixture.start();
    r = await WebhookReceiver.start(newSecret());
  });
  after(async () => {
    await r.stop();
    await f.stop();
  });

  it("delivers every event after a restart on the same nats-server and store; duplicates keep their webhook-id", async () => {
    await callUnary(f.api.createSubscription.bind(f.api), {
      org: "acme",
      url: r.url,
      eventTypes: [],
      secret: r.secret,
    });
    // The receiver holds its answer to the first arrival of event 3: the service dies while waiting.
    let held = false;
    r.respond = (a) => {
      if (a.payload.pr_number === 3 && !held) {
        held = true;
        return "hang";
      }
      return 200;
    };
    const published: string[] = [];
    for (let n = 1; n <= 6; n++) published.push(await f.publishPullRequestEvent({ prNumber: n }));
    await eventually("event 3 in flight", () => held);

    await f.crash();
    await f.startInstance();

    await eventually("all six events accepted", () => r.accepted.length >= 6, 15_000);
    expect(r.rejected).to.deep.equal([]);
    const firstSeen = [...new Set(r.arrivals.map((a) => a.payload.pr_number))];
    expect(firstSeen).to.deep.equal([1, 2, 3, 4, 5, 6]);
    const acceptedNumbers = [...new Set(r.accepted.map((a) => a.payload.pr_number))];
    expect(acceptedNumbers).to.deep.equal([1, 2, 3, 4, 5, 6]);
    // Event 3 arrived at least twice, and every arrival of one event carries one webhook-id.
    expect(r.arrivals.filter((a) => a.payload.pr_number === 3).length).to.be.at.least(2);
    const idsPerEvent = new Map<unknown, Set<string>>();
    for (const a of r.arrivals) {
      const ids = idsPerEvent.get(a.payload.pr_number) ?? new Set<string>();
      ids.add(a.webhookId);
      idsPerEvent.set(a.payload.pr_number, ids);
    }
    for (const ids of idsPerEvent.values()) expect(ids.size).to.equal(1);
    expect(new Set(r.arrivals.map((a) => a.webhookId)).size).to.equal(6);
  });
});
