import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { freePort, NatsServer, nodeEntryArgs } from "@mainline/testing";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The real webhooks service as its own process (as make dev runs it), on its own nats-server. */
async function startWebhooksService(nats: NatsServer): Promise<{ child: ChildProcess; address: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, nodeEntryArgs("services/webhooks/src/main.ts", repoRoot), {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...nats.serviceEnv(),
      GRPC_PORT: String(port),
      LOG_LEVEL: "silent",
      WEBHOOKS_ALLOW_LOOPBACK: "true",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (!(await checkGrpcHealth(address).catch(() => false))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("webhooks service did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, address };
}

describe("gateway: webhook subscription endpoints", function () {
  this.timeout(30_000);
  let nats: NatsServer;
  let service: { child: ChildProcess; address: string };
  let gw: GatewayHarness;
  let tokenA: string;
  let tokenB: string;
  let receiver: Server;
  let receiverUrl: string;
  const received: { verified: boolean; payload: unknown }[] = [];
  let secret = "";

  before(async () => {
    nats = await NatsServer.start();
    service = await startWebhooksService(nats);
    gw = await GatewayHarness.start({ webhooks: service.address });
    tokenA = await gw.organization("org-a");
    tokenB = await gw.organization("org-b");
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString();
        try {
          received.push({ verified: true, payload: new Webhook(secret).verify(body, req.headers as never) });
          res.statusCode = 200;
        } catch {
          received.push({ verified: false, payload: body });
          res.statusCode = 400;
        }
        res.end();
      });
    });
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    receiver?.close();
    await gw?.stop();
    service?.child.kill("SIGTERM");
    if (service && service.child.exitCode === null) await once(service.child, "exit");
    await nats?.stop();
  });

  const call = (method: string, pathAndQuery: string, token: string | undefined, body?: unknown) =>
    gw.fetch(`${gw.url}${pathAndQuery}`, {
      method,
      headers: {
        ...(body !== undefined && { "content-type": "application/json" }),
        ...(token && { "x-api-token": token }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  let subscriptionId = "";

  it("creates a subscription and shows its generated secret in the answer, never in the list", async () => {
    const created = await call("POST", "/webhooks/subscriptions", tokenA, {
      url: receiverUrl,
      eventTypes: ["pull_request.merged", "pull_request_batch.pending_failure"],
      description: "CI bot",
    });
    expect(created.status).to.equal(201);
    const { subscription } = (await created.json()) as { subscription: Record<string, unknown> };
    expect(subscription.secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(subscription).to.include({ url: receiverUrl, disabled: false, description: "CI bot" });
    secret = subscription.secret as string;
    subscriptionId = subscription.id as string;

    const listed = await call("GET", "/webhooks/subscriptions", tokenA);
    expect(listed.status).to.equal(200);
    const { subscriptions } = (await listed.json()) as { subscriptions: Record<string, unknown>[] };
    expect(subscriptions).to.have.length(1);
    expect(subscriptions[0]).to.include({ id: subscriptionId, disabled: false, disabledReason: "" });
    expect(subscriptions[0]).not.to.have.property("secret");
  });

  it("answers a retried create with the subscription the first call made, secret included", async () => {
    const body = {
      url: receiverUrl,
      eventTypes: ["pull_request_batch.pending_failure", "pull_request.merged"],
      description: "CI bot",
    };
    const retried = await call("POST", "/webhooks/subscriptions", tokenA, body);
    expect(retried.status).to.equal(201);
    const { subscription } = (await retried.json()) as { subscription: Record<string, unknown> };
    expect(subscription).to.include({ id: subscriptionId, secret });
    // Another event set is another subscription, to the same URL.
    const other = await call("POST", "/webhooks/subscriptions", tokenA, { ...body, eventTypes: [] });
    const otherId = ((await other.json()) as { subscription: { id: string } }).subscription.id;
    expect(otherId).not.to.equal(subscriptionId);
    const ids = async () =>
      (
        (await (await call("GET", "/webhooks/subscriptions", tokenA)).json()) as {
          subscriptions: { id: string }[];
        }
      ).subscriptions.map((s) => s.id);
    expect(await ids()).to.have.members([subscriptionId, otherId]);
    expect((await call("DELETE", `/webhooks/subscriptions?id=${otherId}`, tokenA)).status).to.equal(200);
    expect(await ids()).to.deep.equal([subscriptionId]);
  });

  it("never shows or changes one organisation's subscription to another", async () => {
    const listed = (await (await call("GET", "/webhooks/subscriptions", tokenB)).json()) as {
      subscriptions: unknown[];
    };
    expect(listed.subscriptions).to.deep.equal([]);
    const attempts = [
      call("DELETE", `/webhooks/subscriptions?id=${subscriptionId}`, tokenB),
      call("POST", "/webhooks/subscriptions/test", tokenB, { id: subscriptionId }),
      call("POST", "/webhooks/subscriptions/enable", tokenB, { id: subscriptionId }),
      call("GET", `/webhooks/deliveries?subscriptionId=${subscriptionId}`, tokenB),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).to.equal(404);
      expect(await response.text()).to.equal(`webhook subscription ${subscriptionId} does not exist`);
    }
    const stillThere = (await (await call("GET", "/webhooks/subscriptions", tokenA)).json()) as {
      subscriptions: unknown[];
    };
    expect(stillThere.subscriptions).to.have.length(1);
  });

  it("sends a signed test event and lists the delivery", async () => {
    const sent = await call("POST", "/webhooks/subscriptions/test", tokenA, { id: subscriptionId });
    expect(sent.status).to.equal(202);
    const { eventId } = (await sent.json()) as { eventId: string };
    let deliveries: Record<string, unknown>[] = [];
    const deadline = Date.now() + 10_000;
    while (deliveries.length === 0 && Date.now() < deadline) {
      const response = await call("GET", `/webhooks/deliveries?subscriptionId=${subscriptionId}`, tokenA);
      deliveries = ((await response.json()) as { deliveries: Record<string, unknown>[] }).deliveries;
      if (deliveries.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(deliveries[0]).to.include({
      eventId,
      eventType: "webhook.test",
      attempt: 1,
      statusCode: 200,
      error: null,
      succeeded: true,
    });
    expect(received).to.have.length(1);
    expect(received[0]?.verified).to.equal(true);
    expect(received[0]?.payload).to.include({ type: "webhook.test", subscription_id: subscriptionId });
  });

  const badRequests: [string, string, string, unknown, RegExp][] = [
    ["a missing url", "POST", "/webhooks/subscriptions", {}, /^url: is required/],
    [
      "an unknown event type",
      "POST",
      "/webhooks/subscriptions",
      { url: "https://example.com/h", eventTypes: ["pull_request.exploded"] },
      /^eventTypes: "pull_request\.exploded" is not an event type; use any of pull_request\.submitted/,
    ],
    [
      "a private address",
      "POST",
      "/webhooks/subscriptions",
      { url: "http://10.0.0.1/hook" },
      /^url: 10\.0\.0\.1 is a private address/,
    ],
    [
      "the cloud metadata address",
      "POST",
      "/webhooks/subscriptions",
      { url: "http://169.254.169.254/" },
      /^url: 169\.254\.169\.254 is a link-local address/,
    ],
    [
      "a malformed secret",
      "POST",
      "/webhooks/subscriptions",
      { url: "https://example.com/h", secret: "hunter2" },
      /^secret: must start with whsec_/,
    ],
    ["a missing id", "POST", "/webhooks/subscriptions/test", {}, /^id: is required/],
    ["a limit over 500", "GET", "/webhooks/deliveries?subscriptionId=x&limit=501", undefined, /^limit: /],
  ];
  for (const [what, method, where, body, message] of badRequests) {
    it(`answers 400 for ${what}`, async () => {
      const response = await call(method, where, tokenA, body);
      expect(response.status).to.equal(400);
      expect(await response.text()).to.match(message);
    });
  }

  it("answers 401 without a token", async () => {
    expect((await call("GET", "/webhooks/subscriptions", undefined)).status).to.equal(401);
  });

  it("deletes a subscription", async () => {
    const deleted = await call("DELETE", `/webhooks/subscriptions?id=${subscriptionId}`, tokenA);
    expect(deleted.status).to.equal(200);
    const listed = (await (await call("GET", "/webhooks/subscriptions", tokenA)).json()) as {
      subscriptions: unknown[];
    };
    expect(listed.subscriptions).to.deep.equal([]);
    expect((await call("DELETE", `/webhooks/subscriptions?id=${subscriptionId}`, tokenA)).status).to.equal(
      404,
    );
  });
});
