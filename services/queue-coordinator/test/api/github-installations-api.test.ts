import { expect } from "chai";
import { callUnary, createGrpcClient, RemoteCallError } from "@mainline/kit/grpc/index";
import { rejection } from "@mainline/testing";
import {
  CommitStatusOutcome,
  CommitStatusState,
  ConnectGitHubInstallationRequest,
  GitHubInstallationAction,
  GitHubRepositorySelection,
  QueueCoordinatorClient,
  RecordCommitStatusRequest,
  RecordGitHubInstallationEventRequest,
} from "@mainline/proto/queue";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };

async function refusal(promise: Promise<unknown>): Promise<RemoteCallError> {
  const error = await rejection(promise);
  expect(error).to.be.instanceOf(RemoteCallError);
  return error as RemoteCallError;
}

/** The installation -> organisation mapping and GitHub facts, at the coordinator's gRPC edge. */
describe("queue-coordinator: GitHub installations and facts (gRPC)", function () {
  this.timeout(20_000);
  let coordinator: CoordinatorHarness;
  let client: QueueCoordinatorClient;
  const connect = (
    org: string,
    installationId: number,
    extra: Partial<ConnectGitHubInstallationRequest> = {},
  ) =>
    callUnary(
      client.connectGitHubInstallation.bind(client),
      ConnectGitHubInstallationRequest.fromPartial({ org, installationId, ...extra }),
    );

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    client = createGrpcClient(QueueCoordinatorClient, coordinator.address);
  });
  after(async () => {
    client.close();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("gives an installation to exactly one of two organisations claiming it at once", async () => {
    const results = await Promise.allSettled([connect("alpha", 1001), connect("beta", 1001)]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).to.have.length(1);
    expect(lost).to.have.length(1);
    expect((lost[0]!.reason as RemoteCallError).code).to.equal("ALREADY_EXISTS");
    const { installation } = await callUnary(client.getGitHubInstallation.bind(client), {
      installationId: 1001,
    });
    const winner = (won[0] as PromiseFulfilledResult<{ installation?: { org: string } }>).value.installation
      ?.org;
    expect(installation?.org).to.equal(winner);
  });

  it("resolves a repository to the installation of its organisation only, and not once suspended", async () => {
    await connect("acme", 2002, { accountLogin: "acme", host: "github.com" });
    const resolve = (org: string, r = repo) =>
      callUnary(client.resolveGitHubInstallation.bind(client), { org, repo: r });
    expect((await resolve("acme")).installation?.installationId).to.equal(2002);
    expect((await refusal(resolve("rival"))).code).to.equal("NOT_FOUND");
    expect((await refusal(resolve("acme", { ...repo, owner: "other" }))).code).to.equal("NOT_FOUND");
    expect((await refusal(resolve("acme", { ...repo, host: "ghe.example.com" }))).code).to.equal("NOT_FOUND");
    await callUnary(
      client.recordGitHubInstallationEvent.bind(client),
      RecordGitHubInstallationEventRequest.fromPartial({
        installationId: 2002,
        action: GitHubInstallationAction.SUSPENDED,
        accountLogin: "acme",
      }),
    );
    expect((await refusal(resolve("acme"))).code).to.equal("NOT_FOUND");
  });

  it("refuses bad input naming the field: ids, logins, hosts, repository names, shas, contexts", async () => {
    const cases: [Promise<unknown>, RegExp][] = [
      [connect("acme", 0), /^installationId: must be a positive integer/],
      [connect("", 5), /^org: is required/],
      [connect("acme", 5, { accountLogin: "bad login!" }), /^accountLogin: must be a GitHub account login/],
      [connect("acme", 5, { host: "http://x/" }), /^host: must be a host name/],
      [
        callUnary(
          client.recordGitHubInstallationEvent.bind(client),
          RecordGitHubInstallationEventRequest.fromPartial({
            installationId: 6,
            action: GitHubInstallationAction.REPOSITORIES_CHANGED,
            repositorySelection: GitHubRepositorySelection.SELECTED,
            repositoriesAdded: ["no-slash"],
          }),
        ),
        /^repositoriesAdded: must hold "owner\/name" repository names/,
      ],
      [
        callUnary(
          client.recordCommitStatus.bind(client),
          RecordCommitStatusRequest.fromPartial({
            org: "acme",
            repo,
            sha: "abc",
            context: "ci",
            state: CommitStatusState.SUCCESS,
          }),
        ),
        /^sha: must be a full commit sha/,
      ],
      [
        callUnary(
          client.recordCommitStatus.bind(client),
          RecordCommitStatusRequest.fromPartial({
            org: "acme",
            repo,
            sha: "a".repeat(40),
            context: "c".repeat(1025),
            state: CommitStatusState.SUCCESS,
          }),
        ),
        /^context: must be at most 1024 characters/,
      ],
      [
        callUnary(
          client.recordCommitStatus.bind(client),
          RecordCommitStatusRequest.fromPartial({ org: "acme", repo, sha: "a".repeat(40), context: "ci" }),
        ),
        /^state: must be PENDING, SUCCESS or FAILURE/,
      ],
    ];
    for (const [call, message] of cases) {
      const error = await refusal(call);
      expect(error.code, message.source).to.equal("INVALID_ARGUMENT");
      expect(error.message).to.match(message);
    }
  });

  it("ignores a CI status on a commit that is no test run's head", async () => {
    const answer = await callUnary(
      client.recordCommitStatus.bind(client),
      RecordCommitStatusRequest.fromPartial({
        org: "acme",
        repo,
        sha: "b".repeat(40),
        context: "ci",
        state: CommitStatusState.SUCCESS,
        suite: true,
      }),
    );
    expect(answer.outcome).to.equal(CommitStatusOutcome.IGNORED);
    expect(answer.reason).to.match(/is not the head of a test run in progress/);
  });
});
