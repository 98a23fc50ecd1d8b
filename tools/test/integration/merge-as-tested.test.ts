import { expect } from "chai";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { branchMoves, git } from "@mainline/testing";
import { QueueSystem } from "@mainline/harness/queue-system";
import { LocalRemote } from "../../src/demo/local-remote.js";

const FINAL_STATES = ["MERGED", "FAILED", "CANCELLED"];

/**
 * Issue 16 item 0 and issue 15 item 4, end to end: the coordinator, the batch-runner and
 * nats-server with a real bare remote. A passing run lands as tested even when the PRs ahead merged
 * from their own runs (other commits of the same content), so it is never re-tested; each PR lands as
 * exactly one commit, never an empty copy, and the target only ever moves forward.
 */
describe("a passing run merges as tested (coordinator + batch-runner + nats-server + git)", function () {
  this.timeout(240_000);
  let dir: string;
  let system: QueueSystem;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-as-tested-"));
    system = await QueueSystem.start({
      workDir: path.join(dir, "runner"),
      jobConcurrency: 4,
      maxRunSeconds: 120,
    });
  });

  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const call = (route: string, body: unknown) => system.call(route, body);

  /** A queue on its own repository and remote; the test command sleeps so that runs overlap. */
  async function queueWith(name: string, settings: Record<string, unknown>, testScript: string) {
    const repo = { host: "git.example.com", owner: "acme", name };
    const queue = { repo, targetBranch: "main" };
    const remote = await LocalRemote.create(path.join(dir, name), {
      "app.txt": "app\n",
      "test.sh": testScript,
    });
    await call("/createQueue", { ...queue, ...settings });
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote.remoteDir,
      runner: { kind: "COMMAND", command: "sh test.sh" },
    });
    const open = async (n: number, files: Record<string, string>, impactedTargets?: string[]) => {
      const sha = await remote.pushPullRequest(n, `feature-${n}`, `Change ${n}`, files);
      await call("/code-host/pull-request-events", {
        action: "opened",
        number: n,
        pull_request: {
          title: `Change ${n}`,
          state: "open",
          user: { login: "dev" },
          head: { ref: `feature-${n}`, sha },
          base: { ref: "main" },
        },
        repository: { name, owner: { login: "acme" }, html_url: `https://git.example.com/acme/${name}` },
      });
      if (impactedTargets)
        await call("/setImpactedTargets", { ...queue, pr: { number: n, sha }, impactedTargets });
    };
    const submit = (n: number) => call("/submitPullRequest", { ...queue, pr: { number: n } });
    const finish = async (numbers: number[]) => {
      const states = new Map<number, string>();
      const deadline = Date.now() + 180_000;
      while (states.size < numbers.length) {
        for (const n of numbers) {
          const pr = await call("/getSubmittedPullRequest", { ...queue, pr: { number: n } });
          if (FINAL_STATES.includes(pr.state as string)) states.set(n, pr.state as string);
        }
        if (Date.now() > deadline) throw new Error(`not every PR finished: ${JSON.stringify([...states])}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      return numbers.map((n) => states.get(n));
    };
    return { remote, open, submit, finish };
  }

  /** The remote's main moved `moves` times, each forward from the previous value: no force-push. */
  function expectOnlyFastForwards(remote: LocalRemote, moves: number): void {
    expect(branchMoves(remote.remoteDir, "refs/heads/main")).to.deep.equal({ moves, forced: [] });
  }

  /** `count` commits on main since the base, none with the same tree as its parent. */
  function expectNoEmptyCommits(remote: LocalRemote, count: number): void {
    const lines = git(
      remote.remoteDir,
      "log",
      "--first-parent",
      "--format=%H %T %s",
      `${remote.baseSha}..main`,
    );
    expect(lines.split("\n"), "commits since the base").to.have.length(count);
    for (const line of lines.split("\n")) {
      const [sha, tree, ...subject] = line.split(" ");
      const parentTree = git(remote.remoteDir, "rev-parse", `${sha}^1^{tree}`);
      expect(tree, `"${subject.join(" ")}" is an empty commit`).not.to.equal(parentTree);
    }
  }

  it("lands three passing PRs as exactly three commits with default settings", async () => {
    const q = await queueWith("three", {}, "sleep 1\necho ok\n");
    for (const n of [1, 2, 3]) await q.open(n, { [`pr-${n}.txt`]: `change ${n}\n` });
    for (const n of [1, 2, 3]) await q.submit(n);

    expect(await q.finish([1, 2, 3])).to.deep.equal(["MERGED", "MERGED", "MERGED"]);

    expect(await q.remote.commitsSinceBase()).to.deep.equal(
      [1, 2, 3].map((n) => ({ subject: `Change ${n} (#${n})`, parents: 1 })),
    );
    expect(await q.remote.testBranchesPushed()).to.equal(3);
    expectNoEmptyCommits(q.remote, 3);
    expectOnlyFastForwards(q.remote, 3);
  });

  it("tests four passing PRs at concurrency 2 in exactly four runs", async () => {
    const q = await queueWith("four", { concurrency: 2 }, "sleep 2\necho ok\n");
    for (const n of [1, 2, 3, 4]) await q.open(n, { [`pr-${n}.txt`]: `change ${n}\n` });
    for (const n of [1, 2, 3, 4]) await q.submit(n);

    expect(await q.finish([1, 2, 3, 4])).to.deep.equal(Array(4).fill("MERGED"));

    expect(await q.remote.testBranchesPushed()).to.equal(4);
    expect(await q.remote.commitsSinceBase()).to.deep.equal(
      [1, 2, 3, 4].map((n) => ({ subject: `Change ${n} (#${n})`, parents: 1 })),
    );
    // What landed is what the last run tested: all four changes.
    const files = git(q.remote.remoteDir, "ls-tree", "--name-only", "main").split("\n");
    expect(files).to.include.members(["pr-1.txt", "pr-2.txt", "pr-3.txt", "pr-4.txt"]);
    expectNoEmptyCommits(q.remote, 4);
    expectOnlyFastForwards(q.remote, 4);
  });

  it("merges two disjoint PRs in PARALLEL mode from their own runs, the second without re-testing", async () => {
    const q = await queueWith("parallel", { mode: "PARALLEL", concurrency: 2 }, "sleep 2\necho ok\n");
    await q.open(1, { "a/one.txt": "1\n" }, ["a"]);
    await q.open(2, { "b/two.txt": "2\n" }, ["b"]);
    await q.submit(1);
    await q.submit(2);

    expect(await q.finish([1, 2])).to.deep.equal(["MERGED", "MERGED"]);

    expect(await q.remote.testBranchesPushed()).to.equal(2);
    // Neither lane waited for the other: both runs were on the remote before main first moved.
    const pushes = (await readFile(path.join(q.remote.remoteDir, "pushes.log"), "utf8")).split("\n");
    const firstMerge = pushes.findIndex((line) => line.endsWith(" refs/heads/main") && !/^0+ /.test(line));
    const testBranches = pushes.filter(
      (line, i) => i < firstMerge && line.includes(" refs/heads/mainline/test/"),
    );
    expect(testBranches).to.have.length(2);
    const landed = await q.remote.commitsSinceBase();
    expect(landed.map((c) => c.subject).sort()).to.deep.equal(["Change 1 (#1)", "Change 2 (#2)"]);
    expect(landed.every((c) => c.parents === 1)).to.equal(true);
    expectNoEmptyCommits(q.remote, 2);
    expectOnlyFastForwards(q.remote, 2);
  });

  it("still re-tests when someone pushed to the target outside the queue during the run", async () => {
    const gate = path.join(dir, "outside-gate");
    const q = await queueWith("outside", {}, `while [ ! -e '${gate}' ]; do sleep 0.1; done\necho ok\n`);
    await q.open(1, { "pr-1.txt": "change 1\n" });
    await q.submit(1);
    const deadline = Date.now() + 60_000;
    while ((await q.remote.testBranchesPushed()) < 1) {
      if (Date.now() > deadline) throw new Error("the first run never pushed its test branch");
      await new Promise((r) => setTimeout(r, 100));
    }
    const hotfix = path.join(dir, "outside-hotfix");
    git(dir, "clone", "-q", q.remote.remoteDir, hotfix);
    await writeFile(path.join(hotfix, "hotfix.txt"), "fixed\n");
    git(hotfix, "add", ".");
    git(
      hotfix,
      "-c",
      "user.name=Someone",
      "-c",
      "user.email=someone@example.com",
      "commit",
      "-q",
      "-m",
      "Hotfix",
    );
    git(hotfix, "push", "-q", "origin", "HEAD:main");
    await writeFile(gate, "");

    expect(await q.finish([1])).to.deep.equal(["MERGED"]);

    expect(await q.remote.testBranchesPushed()).to.equal(2);
    expect((await q.remote.commitsSinceBase()).map((c) => c.subject)).to.deep.equal([
      "Hotfix",
      "Change 1 (#1)",
    ]);
    expectOnlyFastForwards(q.remote, 2);
  });
});
