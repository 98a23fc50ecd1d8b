import { expect } from "chai";
import type { NatsConnection } from "nats";
import { eventually, rejection } from "@mainline/testing";
import { publish } from "@mainline/kit/bus/index";
import { callUnary, createGrpcClient, type RemoteCallError } from "@mainline/kit/grpc/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import {
  CancelPullRequestRequest,
  CreateQueueRequest,
  GetMergeQueueTestingDetailsRequest,
  GetQueueRequest,
  GetSubmittedPullRequestRequest,
  MergeJob,
  PullRequestState,
  QueueCoordinatorClient,
  RecordPullRequestFactsRequest,
  ReportTestRunResultRequest,
  RunnerKind,
  SetRepositoryConnectionRequest,
  SubmitPullRequestRequest,
  TestBranchCleanupJob,
  TestRunPushed,
  TestRunStatus,
} from "@mainline/proto/queue";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { org: "acme", repo, targetBranch: "main" };
const sha = (c: string) => c.repeat(40);

/** The jobs the coordinator left on the jobs stream for one subject (no batch-runner takes them here). */
async function jobsOn<T>(nc: NatsConnection, subject: string, decode: (data: Uint8Array) => T): Promise<T[]> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(STREAMS.jobs.name, { subjects_filter: subject });
  const found: T[] = [];
  if (info.state.messages === 0) return found;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const message = await jsm.streams.getMessage(STREAMS.jobs.name, { seq }).catch(() => null);
    if (message?.subject === subject) found.push(decode(message.data));
  }
  return found;
}

/**
 * Issue 17: the coordinator applies an external CI's report itself. The batch-runner only pushes the branch (its
 * notice carries the commits); a report that beats the notice waits for it; a cancelled run's branch is cleaned.
 */
describe("queue-coordinator: runs an external CI tests", function () {
  this.timeout(30_000);
  let coordinator: CoordinatorHarness;
  let client: QueueCoordinatorClient;

  const submit = async (number: number) => {
    await callUnary(
      client.recordPullRequestFacts.bind(client),
      RecordPullRequestFactsRequest.fromPartial({
        org: "acme",
        repo,
        number,
        headBranch: `feature-${number}`,
        headSha: sha(String(number)),
        title: `Change ${number}`,
        author: "dev",
        baseBranch: "main",
      }),
    );
    await callUnary(
      client.submitPullRequest.bind(client),
      SubmitPullRequestRequest.fromPartial({ queue, prNumber: number }),
    );
    return eventually(async () => {
      const { queue: q } = await callUnary(
        client.getQueue.bind(client),
        GetQueueRequest.fromPartial({ queue }),
      );
      const run = q!.activeTestRuns.find((r) => r.prNumbers.includes(number));
      expect(run, `a run for PR ${number}`).to.not.equal(undefined);
      return run!.testRunId;
    });
  };
  const state = async (number: number) =>
    (
      await callUnary(
        client.getSubmittedPullRequest.bind(client),
        GetSubmittedPullRequestRequest.fromPartial({ queue, pr: { $case: "number", value: number } }),
      )
    ).pullRequest?.state;

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    client = createGrpcClient(QueueCoordinatorClient, coordinator.address);
    await callUnary(client.createQueue.bind(client), CreateQueueRequest.fromPartial({ queue }));
    await callUnary(
      client.setRepositoryConnection.bind(client),
      SetRepositoryConnectionRequest.fromPartial({
        org: "acme",
        connection: {
          repo,
          remoteUrl: "https://git.example.com/acme/widgets.git",
          runner: { kind: RunnerKind.EXTERNAL },
        },
      }),
    );
  });
  after(async () => {
    client.close();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("holds a report that beats the push notice, then merges the commits the notice names", async () => {
    const testRunId = await submit(1);
    const testBranch = `mainline/test/main/${testRunId}`;
    await callUnary(
      client.reportTestRunResult.bind(client),
      ReportTestRunResultRequest.fromPartial({
        org: "acme",
        testRunId,
        passed: true,
        detailsUrl: "https://ci.example/7",
      }),
    );
    // Without the commits there is nothing to merge yet: the PR keeps testing.
    expect(await state(1)).to.equal(PullRequestState.TESTING);
    // The same verdict again is a retry; the contrary one is refused while the first waits.
    await callUnary(
      client.reportTestRunResult.bind(client),
      ReportTestRunResultRequest.fromPartial({
        org: "acme",
        testRunId,
        passed: true,
        detailsUrl: "https://ci.example/7",
      }),
    );
    const contrary = await rejection(
      callUnary(
        client.reportTestRunResult.bind(client),
        ReportTestRunResultRequest.fromPartial({ org: "acme", testRunId, passed: false }),
      ),
    );
    expect((contrary as RemoteCallError).message).to.equal(
      `test run ${testRunId} is already reported as passed`,
    );

    const js = coordinator.nc.jetstream();
    await publish(
      js,
      SUBJECTS.testRunPushed,
      TestRunPushed,
      TestRunPushed.fromPartial({
        testRunId,
        queue,
        testBranch,
        testBranchSha: sha("b"),
        commits: [{ prNumber: 1, commitSha: sha("b") }],
      }),
      { msgId: `pushed-${testRunId}` },
    );
    const [merge] = await eventually(async () => {
      const merges = await jobsOn(coordinator.nc, SUBJECTS.mergeJob, (d) => MergeJob.decode(d));
      expect(merges).to.have.length(1);
      return merges;
    });
    expect(merge!.pullRequests.map((p) => [p.number, p.testedCommitSha])).to.deep.equal([[1, sha("b")]]);
    expect(merge!.testedSha).to.equal(sha("b"));
    // The run's record may show the verdict a moment after the merge job is out (seen under a loaded make test).
    const details = await eventually(async () => {
      const answer = await callUnary(
        client.getMergeQueueTestingDetails.bind(client),
        GetMergeQueueTestingDetailsRequest.fromPartial({ queue, testRunId }),
      );
      expect(answer.details).to.deep.include({
        status: TestRunStatus.SUCCEEDED,
        testBranch,
        testBranchSha: sha("b"),
      });
      return answer.details;
    });
    expect(details!.statusChecks).to.deep.equal([
      { context: "mainline/external-ci", url: "https://ci.example/7", state: "success" },
    ]);
  });

  it("asks the batch-runner to delete the branch of a run cancelled while the CI tests it", async () => {
    const testRunId = await submit(2);
    await callUnary(
      client.cancelPullRequest.bind(client),
      CancelPullRequestRequest.fromPartial({ queue, prNumber: 2 }),
    );
    const [cleanup] = await eventually(async () => {
      const cleanups = await jobsOn(coordinator.nc, SUBJECTS.testBranchCleanupJob, (d) =>
        TestBranchCleanupJob.decode(d),
      );
      expect(cleanups).to.have.length(1);
      return cleanups;
    });
    expect(cleanup).to.deep.include({
      cleanupId: testRunId,
      remoteUrl: "https://git.example.com/acme/widgets.git",
      testBranches: [`mainline/test/main/${testRunId}`],
    });
  });
});
