import { expect } from "chai";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { callUnary, createGrpcClient, RemoteCallError } from "@mainline/kit/grpc/index";
import { rejection } from "@mainline/testing";
import {
  CreateQueueRequest,
  ListFinishedPullRequestsRequest,
  PullRequestState,
  QueueCoordinatorClient,
} from "@mainline/proto/queue";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { org: "acme", repo, targetBranch: "main" };

/** The coordinator checks a history request itself too: a caller other than the gateway gets the same rules. */
describe("ListFinishedPullRequests refuses what the gateway would", function () {
  this.timeout(20_000);
  let coordinator: CoordinatorHarness;
  let client: QueueCoordinatorClient;

  const list = (request: Partial<ListFinishedPullRequestsRequest>) =>
    callUnary(
      client.listFinishedPullRequests.bind(client),
      ListFinishedPullRequestsRequest.fromPartial({ queue, limit: 10, ...request }),
    );
  const refusal = async (request: Partial<ListFinishedPullRequestsRequest>) => {
    const error = await rejection(list(request));
    expect(error).to.be.instanceOf(RemoteCallError);
    return error as RemoteCallError;
  };

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    client = createGrpcClient(QueueCoordinatorClient, coordinator.address);
    await callUnary(client.createQueue.bind(client), CreateQueueRequest.fromPartial({ queue }));
  });
  after(async () => {
    client.close();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("answers an empty history for a queue nothing left yet", async () => {
    expect(await list({})).to.deep.equal({ pullRequests: [], total: 0 });
  });

  it("refuses a page size, an offset, a search or a state out of bounds, naming the field", async () => {
    const cases: [Partial<ListFinishedPullRequestsRequest>, RegExp][] = [
      [{ limit: 0 }, /limit: must be an integer from 1 to 100/],
      [{ limit: 101 }, /limit/],
      [{ offset: 10_001 }, /offset: must be an integer from 0 to 10000/],
      [{ search: "x".repeat(256) }, /search: must be at most 255 characters/],
      [{ states: [PullRequestState.PENDING] }, /states: each must be one of MERGED, FAILED, CANCELLED/],
      [{ states: [PullRequestState.UNSPECIFIED] }, /states/],
    ];
    for (const [request, message] of cases) {
      const error = await refusal(request);
      expect(error.grpcStatus, JSON.stringify(request)).to.equal(GrpcStatus.INVALID_ARGUMENT);
      expect(error.message).to.match(message);
    }
  });

  it("knows no such queue for another organisation or branch", async () => {
    for (const other of [
      { ...queue, org: "rival" },
      { ...queue, targetBranch: "release" },
    ]) {
      const error = await refusal({ queue: other });
      expect(error.grpcStatus).to.equal(GrpcStatus.NOT_FOUND);
    }
  });
});
