import { expect } from "chai";
import { callUnary } from "@mainline/kit/grpc/index";
import { WebhooksFixture } from "./support/webhooks-fixture.js";

/** The gateway bounds ids; the webhooks service bounds them again, whoever calls it. */
describe("webhooks: subscription id bounds (defence in depth)", function () {
  this.timeout(20_000);
  let f: WebhooksFixture;
  before(async () => {
    f = await WebhooksFixture.start();
  });
  after(() => f.stop());

  it("refuses a 5 MiB subscription id at once with INVALID_ARGUMENT, and keeps serving", async () => {
    const started = performance.now();
    const error = await callUnary(f.api.sendTestEvent.bind(f.api), {
      org: "acme",
      subscriptionId: "w".repeat(5 * 1024 * 1024),
    }).catch((e: Error) => e);
    expect(performance.now() - started).to.be.below(2000);
    expect((error as { code?: string }).code).to.equal("INVALID_ARGUMENT");
    expect((error as Error).message).to.equal("id: must be at most 128 characters");
    const { subscriptions } = await callUnary(f.api.listSubscriptions.bind(f.api), { org: "acme" });
    expect(subscriptions).to.deep.equal([]);
  });
});
