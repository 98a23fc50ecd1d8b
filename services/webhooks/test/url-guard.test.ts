import { expect } from "chai";
import { callUnary } from "@mainline/kit/grpc/index";
import { UrlGuard } from "../src/delivery/url-guard.js";
import { eventually, WebhookReceiver } from "./support/webhook-receiver.js";
import { newSecret, WebhooksFixture } from "./support/webhooks-fixture.js";

describe("webhooks: server-side request forgery guard", function () {
  describe("when create is asked for an internal address", () => {
    let f: WebhooksFixture;
    before(async () => {
      f = await WebhooksFixture.start({ WEBHOOKS_ALLOW_LOOPBACK: false });
    });
    after(() => f.stop());

    const refusals: [string, RegExp][] = [
      ["http://10.0.0.1/hook", /10\.0\.0\.1 is a private address/],
      ["http://169.254.169.254/latest/meta-data", /169\.254\.169\.254 is a link-local address/],
      ["http://[::1]:8080/hook", /::1 is a loopback address/],
      ["http://127.0.0.1:9/hook", /127\.0\.0\.1 is a loopback address/],
      ["http://localhost:9/hook", /is a loopback address/],
      ["http://[::ffff:10.1.2.3]/hook", /is a private address/],
      ["http://100.64.0.1/hook", /is a private address/],
      ["http://0.0.0.0/hook", /0\.0\.0\.0 is an unspecified address/],
      // Addresses that carry an internal IPv4 address, and special-purpose IPv4 ranges.
      ["http://[64:ff9b::a00:1]/hook", /is a private address/],
      ["http://[2002:a00:1::1]/hook", /is a private address/],
      ["http://[::169.254.169.254]/latest/meta-data", /is a link-local address/],
      ["http://[::127.0.0.1]/hook", /is a loopback address/],
      ["http://198.18.0.1/hook", /198\.18\.0\.1 is a reserved address/],
      ["http://192.0.0.1/hook", /192\.0\.0\.1 is a reserved address/],
      ["ftp://example.com/hook", /must use http or https/],
      ["not a url", /must be an absolute http or https URL/],
    ];
    for (const [url, message] of refusals) {
      it(`refuses ${url}`, async () => {
        const error = await callUnary(f.api.createSubscription.bind(f.api), {
          org: "acme",
          url,
          eventTypes: [],
        }).catch((e: Error) => e);
        expect(error).to.be.instanceOf(Error);
        expect((error as Error).message)
          .to.match(/^url: /)
          .and.match(message);
        expect((error as { code?: string }).code).to.equal("INVALID_ARGUMENT");
      });
    }
    it("stores nothing for a refused URL", async () => {
      const { subscriptions } = await callUnary(f.api.listSubscriptions.bind(f.api), { org: "acme" });
      expect(subscriptions).to.deep.equal([]);
    });
  });

  describe("when an allow-list permits the range", () => {
    it("accepts addresses of WEBHOOKS_ALLOWED_CIDRS and nothing else", async () => {
      const guard = new UrlGuard({ allowLoopback: false, allowedCidrs: ["10.20.0.0/16", "fd00::/8"] });
      expect((await guard.check("http://10.20.3.4/x")).hostname).to.equal("10.20.3.4");
      expect((await guard.check("https://[fd00::1]/x")).hostname).to.equal("[fd00::1]");
      await guard.check("http://10.21.0.1/x").then(
        () => expect.fail("10.21.0.1 is outside the allowed range"),
        (e: Error) => expect(e.message).to.match(/private address/),
      );
    });
    it("refuses a malformed CIDR setting", () => {
      expect(() => new UrlGuard({ allowLoopback: false, allowedCidrs: ["10.0.0.0/33"] })).to.throw(
        /not a CIDR/,
      );
    });
  });

  describe("at delivery time", () => {
    let f: WebhooksFixture;
    let r: WebhookReceiver;
    before(async () => {
      f = await WebhooksFixture.start({ WEBHOOKS_ALLOW_LOOPBACK: true });
      r = await WebhookReceiver.start(newSecret());
    });
    after(async () => {
      await r.stop();
      await f.stop();
    });

    it("checks the address again on every attempt and logs the refusal", async () => {
      const { subscription } = await callUnary(f.api.createSubscription.bind(f.api), {
        org: "acme",
        url: r.url,
        eventTypes: [],
        secret: r.secret,
      });
      // The operator withdraws the loopback permission: the stored URL no longer passes.
      await f.crash();
      await f.startInstance({ WEBHOOKS_ALLOW_LOOPBACK: false });
      await f.publishPullRequestEvent({ prNumber: 1 });
      const refusals = async () =>
        (
          await callUnary(f.api.listDeliveries.bind(f.api), {
            org: "acme",
            subscriptionId: subscription!.id,
            limit: 0,
          })
        ).deliveries;
      await eventually("a refused attempt in the log", async () => (await refusals()).length > 0);
      const [first] = await refusals();
      expect(first?.succeeded).to.equal(false);
      expect(first?.statusCode).to.equal(undefined);
      expect(first?.error).to.match(/^refused: 127\.0\.0\.1 is a loopback address/);
      expect(r.arrivals).to.deep.equal([]);
    });
  });
});
