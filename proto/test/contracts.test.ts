import { expect } from "chai";
import { credentials, Server, ServerCredentials, status, type ServiceError } from "@grpc/grpc-js";
import { flaky, queue } from "../src/index.js";
import {
  GetSubmittedPullRequestRequest,
  PullRequestState,
  QueueCoordinatorClient,
  QueueCoordinatorService,
  QueueState,
  SubmitPullRequestRequest,
  TestRunJob,
  type QueueCoordinatorServer,
} from "../src/queue.js";

describe("proto contracts", () => {
  it("keeps a oneof, optional scalars and timestamps through the wire", () => {
    const request = SubmitPullRequestRequest.fromPartial({
      queue: { org: "acme", repo: { host: "github.com", owner: "acme", name: "app" }, targetBranch: "main" },
      prNumber: 7,
      priority: { $case: "priorityValue", value: 0 },
      noBatch: true,
    });
    const decoded = SubmitPullRequestRequest.decode(SubmitPullRequestRequest.encode(request).finish());
    expect(decoded.priority).to.deep.equal({ $case: "priorityValue", value: 0 });
    expect(decoded.requestedBy).to.equal(undefined);

    const createdAt = new Date("2025-01-02T03:04:05.678Z");
    const job = TestRunJob.decode(
      TestRunJob.encode(
        TestRunJob.fromPartial({ testRunId: "run-1", createdAt, timeoutSeconds: 60 }),
      ).finish(),
    );
    expect(job.createdAt?.toISOString()).to.equal(createdAt.toISOString());
    expect(job.baseSha).to.equal(undefined);
  });

  it("names enum members as the HTTP API writes the states", () => {
    expect(QueueState[QueueState.SWITCHING_MODES]).to.equal("SWITCHING_MODES");
    expect(PullRequestState[PullRequestState.PENDING_FAILURE]).to.equal("PENDING_FAILURE");
    expect(flaky.TestStatus[flaky.TestStatus.FLAKY].toLowerCase()).to.equal("flaky");
    expect(queue.QueueCoordinatorService.submitPullRequest.path).to.equal(
      "/mainline.queue.v1.QueueCoordinator/SubmitPullRequest",
    );
  });

  it("serves and calls a service through grpc-js", async () => {
    const impl: Partial<QueueCoordinatorServer> = {
      getSubmittedPullRequest: (call, callback) => {
        const pr = call.request.pr;
        if (pr?.$case !== "branch") {
          callback({ code: status.NOT_FOUND, details: "only branches here" }, null);
          return;
        }
        callback(null, {
          pullRequest: {
            id: "entry-1",
            state: PullRequestState.TESTING,
            stateChangedAt: new Date(0),
            priorityValue: 100,
            priorityName: "medium",
            usedDefaultPriorityName: true,
            skipTheLine: false,
            isCurrentlySubmittedToQueue: true,
            prNumber: 42,
            prTitle: "Fix",
            prSha: "abc",
            prBaseBranch: "main",
            prAuthor: pr.value,
            history: [],
            priorityChanges: [],
          },
        });
      },
    };
    const server = new Server();
    // Methods left out answer UNIMPLEMENTED.
    server.addService(QueueCoordinatorService, impl as QueueCoordinatorServer);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    const client = new QueueCoordinatorClient(`127.0.0.1:${port}`, credentials.createInsecure());
    try {
      const call = (request: GetSubmittedPullRequestRequest) =>
        new Promise<queue.GetSubmittedPullRequestResponse>((resolve, reject) =>
          client.getSubmittedPullRequest(request, (error, response) =>
            error ? reject(error) : resolve(response),
          ),
        );
      const response = await call({ pr: { $case: "branch", value: "feature" } });
      expect(response.pullRequest?.prAuthor).to.equal("feature");
      expect(response.pullRequest?.stateChangedAt?.getTime()).to.equal(0);
      const failure = await call({ pr: { $case: "number", value: 1 } }).catch((error: unknown) => error);
      expect((failure as ServiceError).code).to.equal(status.NOT_FOUND);
    } finally {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    }
  });
});
