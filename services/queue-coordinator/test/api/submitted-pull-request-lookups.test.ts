import { expect } from "chai";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { callUnary, createGrpcClient, RemoteCallError } from "@mainline/kit/grpc/index";
import { rejection } from "@mainline/testing";
import {
  CreateQueueRequest,
  HostPullRequestState,
  RecordPullRequestFactsRequest,
  SubmitPullRequestRequest,
  PullRequestAction,
  PullRequestState,
  QueueCoordinatorClient,
  type GetSubmittedPullRequestRequest,
} from "@mainline/proto/queue";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { org: "acme", repo, targetBranch: "main" };

describe("GetSubmittedPullRequests (many status lookups in one call)", function () {
  this.timeout(20_000);
  let coordinator: CoordinatorHarness;
  let client: QueueCoordinatorClient;

  const byNumber = (value: number, q = queue): GetSubmittedPullRequestRequest => ({
    queue: q,
    pr: { $case: "number", value },
  });
  const byBranch = (value: string): GetSubmittedPullRequestRequest => ({
    queue,
    pr: { $case: "branch", value },
  });
  const lookups = (requests: GetSubmittedPullRequestRequest[]) =>
    callUnary(client.getSubmittedPullRequests.bind(client), { lookups: requests });

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    client = createGrpcClient(QueueCoordinatorClient, coordinator.address);
    await callUnary(client.createQueue.bind(client), CreateQueueRequest.fromPartial({ queue }));
    for (const number of [1, 2]) {
      await callUnary(
        client.recordPullRequestFacts.bind(client),
        RecordPullRequestFactsRequest.fromPartial({
          org: queue.org,
          repo,
          number,
          action: PullRequestAction.OPENED,
          headBranch: `feature-${number}`,
          headSha: String(number).repeat(40),
          title: `Change ${number}`,
          author: "dev",
          baseBranch: "main",
          state: HostPullRequestState.OPEN,
          merged: false,
        }),
      );
      await callUnary(
        client.submitPullRequest.bind(client),
        SubmitPullRequestRequest.fromPartial({ queue, prNumber: number }),
      );
    }
  });
  after(async () => {
    client.close();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("answers every lookup on its own, in the order asked, as the single call would", async () => {
    const asked = [
      byNumber(2),
      byNumber(99),
      byBranch("feature-1"),
      byNumber(1, { ...queue, targetBranch: "release" }),
      byBranch("  "),
      byNumber(1, { ...queue, org: "rival" }),
      byNumber(1),
    ];
    const { results } = await lookups(asked);
    expect(results).to.have.length(asked.length);
    for (const [i, request] of asked.entries()) {
      const single = await callUnary(client.getSubmittedPullRequest.bind(client), request).then(
        (r) => ({ $case: "pullRequest" as const, value: r.pullRequest }),
        (e: RemoteCallError) => ({
          $case: "error" as const,
          value: { code: e.grpcStatus, message: e.message },
        }),
      );
      expect(results[i]?.result, `lookup ${i}`).to.deep.equal(single);
    }
    const codes = results.map((r) => (r.result?.$case === "error" ? r.result.value.code : GrpcStatus.OK));
    expect(codes).to.deep.equal([
      GrpcStatus.OK,
      GrpcStatus.NOT_FOUND,
      GrpcStatus.OK,
      GrpcStatus.NOT_FOUND,
      GrpcStatus.INVALID_ARGUMENT,
      // Another organisation's queue of the same name is not this one.
      GrpcStatus.NOT_FOUND,
      GrpcStatus.OK,
    ]);
    const found = results.map((r) =>
      r.result?.$case === "pullRequest" ? r.result.value.prNumber : undefined,
    );
    expect(found).to.deep.equal([2, undefined, 1, undefined, undefined, undefined, 1]);
  });

  it("answers an empty call with no results", async () => {
    expect((await lookups([])).results).to.deep.equal([]);
  });

  it("refuses more than 1000 lookups in one call, naming the field", async () => {
    const error = await rejection(lookups(Array.from({ length: 1001 }, () => byNumber(1))));
    expect(error).to.be.instanceOf(RemoteCallError);
    expect((error as RemoteCallError).grpcStatus).to.equal(GrpcStatus.INVALID_ARGUMENT);
    expect((error as Error).message).to.match(/lookups.*at most 1000/);
  });

  it("returns the PR's history (every state change with time and reason) after it left the queue, and the queue list counts it", async () => {
    await callUnary(
      client.submitPullRequest.bind(client),
      SubmitPullRequestRequest.fromPartial({ queue, prNumber: 3 }),
    );
    await callUnary(client.cancelPullRequest.bind(client), { queue, prNumber: 3 });
    const { pullRequest } = await callUnary(client.getSubmittedPullRequest.bind(client), byNumber(3));
    const history = pullRequest!.history.map((t) => ({ from: t.from, to: t.to, reason: t.reason }));
    // Without facts from the code host it waits NOT_READY (a step of its own), until it is cancelled.
    expect(history[0]).to.deep.equal({
      from: PullRequestState.UNSPECIFIED,
      to: PullRequestState.NOT_READY,
      reason: "SUBMITTED",
    });
    expect(history.at(-1)).to.deep.equal({
      from: PullRequestState.NOT_READY,
      to: PullRequestState.CANCELLED,
      reason: "CANCELLED_BY_USER",
    });
    for (const t of pullRequest!.history) expect(t.at!.getTime()).to.be.closeTo(Date.now(), 60_000);
    // The queue list counts it among the PRs that ended in the last hour.
    const { queues } = await callUnary(client.listQueues.bind(client), {
      org: queue.org,
      allOrganizations: false,
    });
    expect(queues[0]!.lastHour).to.deep.equal({ merged: 0, failed: 0, cancelled: 1 });
  });
});
