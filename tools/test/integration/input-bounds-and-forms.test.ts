import { expect } from "chai";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "globex", name: "widgets" };
const queue = { repo, targetBranch: "main" };

describe("input bounds and forms at the API (gateway -> queue-coordinator)", function () {
  this.timeout(30_000);
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let acme: string;
  let globex: string;

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    gw = await GatewayHarness.start({ queue: coordinator.address });
    acme = await gw.organization("acme");
    globex = await gw.organization("globex");
    expect((await gw.post("/createQueue", queue, globex)).status).to.equal(200);
  });
  after(async () => {
    await gw.stop();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("answers a 5 MiB repo.host with 400 while another organisation's calls go on undelayed", async () => {
    /** Five calls of another organisation at once: their statuses and the slowest one's time. */
    const others = async () => {
      const timings: number[] = [];
      const statuses = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const started = performance.now();
          const response = await gw.post("/getQueue", queue, globex);
          timings.push(performance.now() - started);
          return response.status;
        }),
      );
      return { statuses, slowest: Math.max(...timings) };
    };
    // The same calls alone first: on a loaded machine they are slow without any 5 MiB body too.
    const alone = await others();
    const huge = gw.post(
      "/getQueue",
      { repo: { ...repo, host: "h".repeat(5 * 1024 * 1024) }, targetBranch: "main" },
      acme,
    );
    const beside = await others();
    expect(beside.statuses).to.deep.equal([200, 200, 200, 200, 200]);
    const refused = await huge;
    expect(refused.status).to.equal(400);
    expect(await refused.text()).to.equal("repo.host: must be at most 259 characters");
    expect(beside.slowest, `alone the slowest took ${Math.round(alone.slowest)} ms`).to.be.below(
      3 * alone.slowest + 1000,
    );
    // The coordinator's connection to NATS survived: the queue is still served.
    expect((await gw.post("/getQueue", queue, globex)).status).to.equal(200);
  });

  it("refuses a 3,500-character repository name with 400, and the coordinator keeps its NATS connection", async () => {
    const response = await gw.post(
      "/createQueue",
      { repo: { ...repo, name: "n".repeat(3500) }, targetBranch: "main" },
      acme,
    );
    expect(response.status).to.equal(400);
    expect(await response.text()).to.equal("repo.name: must be at most 255 characters");
    expect(coordinator.nc.isClosed()).to.equal(false);
  });

  it("takes pr.number written as a decimal string, as Trunk's impacted-targets action sends it", async () => {
    const sha = "c".repeat(40);
    const targets = await gw.post(
      "/setImpactedTargets",
      { ...queue, pr: { number: "6", sha }, impactedTargets: ["web"] },
      globex,
    );
    expect(targets.status, await targets.text()).to.equal(200);
    expect((await gw.post("/submitPullRequest", { ...queue, pr: { number: "6" } }, globex)).status).to.equal(
      200,
    );
    const status = await gw.post("/getSubmittedPullRequest", { ...queue, pr: { number: "6" } }, globex);
    expect(await status.json()).to.include({ prNumber: 6, isCurrentlySubmittedToQueue: true });
    expect((await gw.post("/cancelPullRequest", { ...queue, pr: { number: "6" } }, globex)).status).to.equal(
      200,
    );
    const bad = await gw.post("/submitPullRequest", { ...queue, pr: { number: "6.5" } }, globex);
    expect(bad.status).to.equal(400);
  });
});
