import { expect } from "chai";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect, type NatsConnection } from "nats";
import { branchMoves, eventually, git } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { startBatchRunner, type BatchRunner } from "@mainline/batch-runner";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

const repo = { host: "git.example.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };
const PRS = [1, 2, 3, 4, 5, 6];
const CONCURRENCY = 2;

/**
 * Issue 25: two batch-runner replicas, each allowed more runs than the queue's concurrency, share the test-run jobs
 * of one queue. The queue's concurrency holds across them (the planner starts at most that many runs), and both
 * replicas take a share.
 */
describe("batch-runner replicas: the queue's concurrency holds across them", function () {
  this.timeout(180_000);
  let dir: string;
  let remote: string;
  let baseSha: string;
  let coordinator: CoordinatorHarness;
  let gateway: GatewayHarness;
  let token: string;
  const runners: Array<{ nc: NatsConnection; runner: BatchRunner }> = [];
  let runsLog: string;

  const call = async (route: string, body: unknown) => {
    const response = await gateway.post(route, body, token);
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).to.equal(200);
    return JSON.parse(text) as Record<string, unknown>;
  };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-runner-replicas-"));
    remote = path.join(dir, "remote.git");
    runsLog = path.join(dir, "runs.log");
    const running = path.join(dir, "running");
    const work = path.join(dir, "work");
    git(dir, "init", "--bare", "--initial-branch=main", remote);
    git(dir, "clone", "-q", remote, work);
    git(work, "checkout", "-q", "-b", "main");
    // Each run notes how many runs are in progress (its own included) and where it runs, then takes a while.
    await writeFile(
      path.join(work, "test.sh"),
      [
        `mkdir -p '${running}'`,
        `touch '${running}'/$$`,
        `echo "$(ls '${running}' | wc -l) $PWD" >> '${runsLog}'`,
        "sleep 1",
        `rm '${running}'/$$`,
        "",
      ].join("\n"),
    );
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "initial");
    git(work, "push", "-q", "origin", "main");
    baseSha = git(work, "rev-parse", "HEAD");
    for (const n of PRS) {
      git(work, "checkout", "-q", "-b", `feature-${n}`, baseSha);
      await writeFile(path.join(work, `pr-${n}.txt`), `change ${n}\n`);
      git(work, "add", ".");
      git(work, "commit", "-q", "-m", `Change ${n}`);
      git(work, "push", "-q", "origin", `HEAD:refs/heads/feature-${n}`, `HEAD:refs/pull/${n}/head`);
    }

    coordinator = await CoordinatorHarness.start();
    for (const name of ["a", "b"]) {
      const nc = await connect(coordinator.nats.connectOptions());
      const runner = await startBatchRunner({
        nats: nc,
        logger: createLogger(`batch-runner-${name}`, process.env.TEST_LOG_LEVEL ?? "silent"),
        settings: {
          workDir: path.join(dir, `runner-${name}`),
          gitIdentity: { name: "Mainline", email: "mainline@localhost" },
          // More than the queue allows: the bound is the queue's, not the replica's.
          jobConcurrency: 4,
          maxRunSeconds: 120,
        },
      });
      runners.push({ nc, runner });
    }
    gateway = await GatewayHarness.start({ queue: coordinator.address });
    token = await gateway.organization("acme");
  });

  after(async () => {
    await gateway?.stop();
    for (const { nc, runner } of runners) {
      await runner.stop();
      await nc.close();
    }
    await coordinator?.stop();
    await coordinator?.nats.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("never runs more than the queue's concurrency at once, and both replicas take runs", async () => {
    await call("/createQueue", { ...queue, concurrency: CONCURRENCY });
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh" },
    });
    for (const n of PRS) {
      await call("/code-host/pull-request-events", {
        action: "opened",
        number: n,
        pull_request: {
          title: `Change ${n}`,
          state: "open",
          user: { login: "dev" },
          head: { ref: `feature-${n}`, sha: git(remote, "rev-parse", `refs/pull/${n}/head`) },
          base: { ref: "main" },
        },
        repository: {
          name: repo.name,
          owner: { login: repo.owner },
          html_url: `https://${repo.host}/acme/app`,
        },
      });
      await call("/submitPullRequest", { ...queue, pr: { number: n } });
    }
    for (const n of PRS) {
      await eventually(async () => {
        const pr = await call("/getSubmittedPullRequest", { ...queue, pr: { number: n } });
        expect(pr.state, `PR ${n}`).to.equal("MERGED");
      }, 120_000);
    }

    const runs = (await readFile(runsLog, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [inProgress, ...cwd] = line.split(" ");
        return { inProgress: Number(inProgress), cwd: cwd.join(" ") };
      });
    expect(runs.length).to.be.at.least(PRS.length / CONCURRENCY);
    // The queue used its concurrency (runs did overlap) and never went beyond it.
    expect(Math.max(...runs.map((r) => r.inProgress))).to.equal(CONCURRENCY);
    for (const { runner } of runners) {
      expect(
        runs.some((r) => r.cwd.startsWith(runner.workDir)),
        `a run on ${runner.workDir}`,
      ).to.equal(true);
    }
    expect(branchMoves(remote, "refs/heads/main").forced).to.deep.equal([]);
  });
});
