import { join } from "node:path";
import { GitHubDouble, makeTestAppCredentials, type ScriptedReply } from "@mainline/testing";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { createLogger } from "@mainline/kit/logging/index";
import { MergeJob, MergeMethod } from "@mainline/proto/queue";
import { GitCredentials } from "../../src/git/git-credentials.js";
import { buildProjectedBranch, type ProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { RemoteFixture } from "../git/remote-fixture.js";

export const INSTALLATION = 88;
export const MERGE = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge";
export const PULL = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
export const openPull: ScriptedReply = {
  status: 200,
  body: { state: "open", merged: false, merge_commit_sha: null },
};
export const notMergeable: ScriptedReply = {
  status: 405,
  body: { message: "Pull Request is not mergeable" },
};
const app = makeTestAppCredentials(8080);

/**
 * A queue of an App's repository that merges through GitHub's API: a real git remote with PRs #1 and #2 and
 * their tested commits (a projected branch), the GitHub double, and the App's client on it, which hands
 * GitHub's retry-after back at once (for the job to wait out on the bus) and spaces no call of its own.
 */
export class GitHubMergeFixture {
  private constructor(
    readonly fx: RemoteFixture,
    readonly double: GitHubDouble,
    readonly github: GitHubAppClient,
    readonly cache: RepositoryCache,
    readonly heads: Record<number, string>,
    readonly projected: ProjectedBranch,
  ) {}

  static async create(): Promise<GitHubMergeFixture> {
    const fx = await RemoteFixture.create();
    const heads = {
      1: await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]),
      2: await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]),
    };
    const double = await GitHubDouble.start({
      app,
      installations: [{ id: INSTALLATION, account: "acme", repositories: ["acme/app"] }],
    });
    const github = new GitHubAppClient({
      settings: {
        appId: app.appId,
        privateKey: app.privateKey,
        webhookSecret: undefined,
        apiUrl: double.url,
      },
      logger: createLogger("test", "silent"),
      writeSpacingMs: 0,
      // The merge call counts as one that notifies (3 s apart by default): here only retry-after spaces calls.
      notificationSpacingMs: 0,
      maxInlineWaitMs: 0,
      retryUnitMs: 10,
    });
    const cache = new RepositoryCache({
      workDir: join(fx.root, "work"),
      credentials: new GitCredentials(undefined, github),
    });
    const projected = await buildProjectedBranch(cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: "run-1",
      mergeMethod: "SQUASH",
      pullRequests: [
        { number: 1, title: "Change 1" },
        { number: 2, title: "Change 2" },
      ],
    });
    return new GitHubMergeFixture(fx, double, github, cache, heads, projected);
  }

  /** The coordinator's merge job of #1 and #2 through the API, with their tested commits and heads. */
  job(mergeId = "merge-1"): MergeJob {
    return MergeJob.fromPartial({
      mergeId,
      queue: { org: "acme", repo: { host: "github.com", owner: "acme", name: "app" }, targetBranch: "main" },
      remoteUrl: this.fx.url,
      pullRequests: [1, 2].map((n) => ({
        number: n,
        testedCommitSha: this.projected.commitsByPr[n],
        headSha: this.heads[n],
        title: `Change ${n}`,
      })),
      testedSha: this.projected.testBranchSha,
      testBranch: this.projected.testBranch,
      github: { installationId: INSTALLATION, mergeThroughApi: true },
      mergeMethod: MergeMethod.SQUASH,
    });
  }

  /** Refuses #2 as not mergeable, every time; #1 merges as GitHub would. */
  refuseSecond(): void {
    this.double.script(MERGE, (r) => (r.pathParams.pull_number === "2" ? notMergeable : undefined), Infinity);
  }

  async dispose(): Promise<void> {
    this.double.assertNoViolations();
    await this.double.stop();
    await this.fx.dispose();
  }
}
