import { expect } from "chai";
import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

interface Answer {
  status: number;
  keepAlive: string | string[] | undefined;
  /** The request went out on a connection an earlier request had opened. */
  reused: boolean;
}

function get(agent: Agent, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          keepAlive: res.headers["keep-alive"],
          reused: req.reusedSocket,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * An idle connection is closed by the client, never by the gateway: one the gateway closed while a client (Node's
 * fetch, a load balancer) was sending a request on it reads as a reset there ("fetch failed", a 502).
 */
describe("gateway: keep-alive connections", function () {
  this.timeout(30_000);
  let gw: GatewayHarness;

  before(async () => {
    gw = await GatewayHarness.start();
  });
  after(() => gw.stop());

  it("keeps an idle connection 65 s, says so, and answers on one left idle past Node's 5 s default", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const healthz = `${new URL(gw.url).origin}/healthz`;
    try {
      const first = await get(agent, healthz);
      expect(first).to.deep.equal({ status: 200, keepAlive: "timeout=65", reused: false });
      await sleep(6_000);
      expect(await get(agent, healthz)).to.deep.equal({ status: 200, keepAlive: "timeout=65", reused: true });
    } finally {
      agent.destroy();
    }
  });
});
