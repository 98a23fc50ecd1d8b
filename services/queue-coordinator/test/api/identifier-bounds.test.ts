import { expect } from "chai";
import { callUnary, createGrpcClient, RemoteCallError } from "@mainline/kit/grpc/index";
import { rejection } from "@mainline/testing";
import { CreateQueueRequest, GetQueueRequest, QueueCoordinatorClient } from "@mainline/proto/queue";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };

/**
 * The gateway bounds every identifier; the coordinator's own parser bounds them again, so that no caller can
 * build a store key or subject past NATS's control-line limit (which drops the connection for every queue).
 */
describe("queue-coordinator: identifier bounds (defence in depth)", function () {
  this.timeout(20_000);
  let coordinator: CoordinatorHarness;
  let client: QueueCoordinatorClient;

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    client = createGrpcClient(QueueCoordinatorClient, coordinator.address);
  });
  after(async () => {
    client.close();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("refuses a 3,500-character repository name with INVALID_ARGUMENT and keeps serving", async () => {
    const long = { org: "acme", repo: { ...repo, name: "n".repeat(3500) }, targetBranch: "main" };
    const error = await rejection(
      callUnary(client.createQueue.bind(client), CreateQueueRequest.fromPartial({ queue: long })),
    );
    expect(error).to.be.instanceOf(RemoteCallError);
    expect((error as RemoteCallError).code).to.equal("INVALID_ARGUMENT");
    expect((error as RemoteCallError).message).to.equal("repo.name: must be at most 255 bytes (UTF-8)");

    const queue = { org: "acme", repo, targetBranch: "main" };
    await callUnary(client.createQueue.bind(client), CreateQueueRequest.fromPartial({ queue }));
    const { queue: created } = await callUnary(
      client.getQueue.bind(client),
      GetQueueRequest.fromPartial({ queue }),
    );
    expect(created?.ref?.targetBranch).to.equal("main");
    expect(coordinator.nc.isClosed()).to.equal(false);
  });

  it("counts bytes, not characters: 100 four-byte characters are 400 bytes", async () => {
    const queue = { org: "acme", repo: { ...repo, owner: "🚀".repeat(100) }, targetBranch: "main" };
    const error = await rejection(
      callUnary(client.createQueue.bind(client), CreateQueueRequest.fromPartial({ queue })),
    );
    expect((error as RemoteCallError).message).to.equal("repo.owner: must be at most 255 bytes (UTF-8)");
  });
});
