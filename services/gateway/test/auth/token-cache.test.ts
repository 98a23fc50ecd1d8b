import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { openStore, type Store } from "@mainline/kit/store/index";
import { AuthRepository } from "../../src/auth/auth-repository.js";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };

describe("gateway: cached authentication never outlives a revocation", () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let store: Store;
  let clock: number;
  /** Two gateway replicas' views of the same token store, on a clock the test moves. */
  let replicaA: AuthRepository;
  let replicaB: AuthRepository;

  before(async () => {
    nats = await NatsServer.start();
    nc = await connect(nats.connectOptions());
    store = await openStore({ database: "gateway-auth-cache-test", nats: nc });
    clock = Date.parse("2026-03-01T00:00:00Z");
    replicaA = await AuthRepository.open(store, { cacheTtlMs: 5_000, now: () => clock });
    replicaB = await AuthRepository.open(store, { cacheTtlMs: 5_000, now: () => clock });
    await replicaA.createOrganization("acme", "Acme");
  });
  after(async () => {
    await store.close();
    await nc.close();
    await nats.stop();
  });

  it("refuses a cached token at once when it is revoked through the same gateway", async () => {
    const { token, summary } = await replicaA.createToken("acme", "ci", false);
    expect(await replicaA.authenticate(token)).to.deep.include({ org: "acme", tokenId: summary.id });
    await replicaA.revokeToken("acme", summary.id);
    expect(await replicaA.authenticate(token)).to.equal(undefined);
  });

  it("refuses a token revoked through another replica once the cache time has passed, not before", async () => {
    const { token, summary } = await replicaA.createToken("acme", "ci", false);
    expect(await replicaA.authenticate(token)).to.not.equal(undefined);
    await replicaB.revokeToken("acme", summary.id);
    expect(await replicaB.authenticate(token), "the revoking replica").to.equal(undefined);
    clock += 4_999;
    expect(await replicaA.authenticate(token), "still within the cache time").to.not.equal(undefined);
    clock += 1;
    expect(await replicaA.authenticate(token), "cache time over").to.equal(undefined);
  });

  it("never caches an unknown token: one created after a failed attempt works at once", async () => {
    expect(await replicaA.authenticate("no-such-token-at-all-000000000")).to.equal(undefined);
    await replicaA.seedToken("acme", "no-such-token-at-all-000000000", false);
    expect(await replicaA.authenticate("no-such-token-at-all-000000000")).to.deep.include({ org: "acme" });
  });

  describe("through the HTTP API", () => {
    let gw: GatewayHarness;
    before(async () => {
      gw = await GatewayHarness.start();
    });
    after(() => gw.stop());

    it("answers 401 right after POST /admin/tokens/revoke for a token that was just used", async () => {
      await gw.auth.createOrganization("acme", "Acme");
      const { token, summary } = await gw.auth.createToken("acme", "ci", false);
      // Used once (so it is cached): the unreachable coordinator answers 503, past authentication.
      expect((await gw.post("/getQueue", { repo, targetBranch: "main" }, token)).status).to.equal(503);
      expect((await gw.post("/admin/tokens/revoke", { id: summary.id }, token)).status).to.equal(200);
      const after = await gw.post("/getQueue", { repo, targetBranch: "main" }, token);
      expect(after.status).to.equal(401);
    });
  });
});
