import { expect } from "chai";
import { branchMoves, git } from "@mainline/testing";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { QueueSystem } from "@mainline/harness/queue-system";

const repo = { host: "git.example.com", owner: "acme", name: "stacks" };
const queue = { repo, targetBranch: "main" };
/** Three stacks of three, each PR on the one before: 1 ← 2 ← 3, 4 ← 5 ← 6 (5 breaks the tests), 7 ← 8 ← 9. */
const STACKS = [
  [1, 2, 3],
  [4, 5, 6],
  [7, 8, 9],
] as const;
const BROKEN = 5;
type Json = Record<string, unknown>;

/**
 * Issue 28 end to end: the coordinator, the batch-runner and nats-server, a real bare remote whose pull requests
 * are stacked (each one's base branch is the head branch of the one below), submitted from their top.
 */
describe("stacked pull requests end to end with real git (coordinator + batch-runner + nats-server)", function () {
  this.timeout(240_000);
  let dir: string;
  let remote: string;
  let baseSha: string;
  let system: QueueSystem;

  const call = (route: string, body: unknown) => system.call(route, body);
  const status = (n: number) => call("/getSubmittedPullRequest", { ...queue, pr: { number: n } });
  const untilEnded = async (prs: readonly number[]): Promise<Map<number, Json>> => {
    const ended = new Map<number, Json>();
    const deadline = Date.now() + 150_000;
    while (ended.size < prs.length) {
      for (const n of prs) {
        const pr = await status(n);
        if (["MERGED", "FAILED", "CANCELLED"].includes(pr.state as string)) ended.set(n, pr);
      }
      if (Date.now() > deadline) throw new Error(`not every PR ended: ${JSON.stringify([...ended])}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return ended;
  };
  const subjectsSince = (sha: string): string[] =>
    git(remote, "log", "--format=%s", `${sha}..main`).split("\n").filter(Boolean).reverse();

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-stacks-"));
    remote = path.join(dir, "remote.git");
    const work = path.join(dir, "work");
    git(dir, "init", "--bare", "--initial-branch=main", remote);
    git(remote, "config", "core.logAllRefUpdates", "always");
    git(dir, "clone", remote, work);
    git(work, "checkout", "-b", "main");
    await writeFile(
      path.join(work, "test.sh"),
      'if [ -e BROKEN ]; then echo "BROKEN exists"; exit 1; fi\necho ok\n',
    );
    git(work, "add", ".");
    git(work, "commit", "-m", "initial");
    git(work, "push", "origin", "main");
    baseSha = git(work, "rev-parse", "HEAD");
    for (const stack of STACKS) {
      git(work, "checkout", "-q", baseSha);
      for (const n of stack) {
        // Each branch starts from the one below it: the PR's commits sit on those of the PR under it.
        git(work, "checkout", "-q", "-b", `stack-${n}`);
        await writeFile(path.join(work, n === BROKEN ? "BROKEN" : `pr-${n}.txt`), `change ${n}\n`);
        git(work, "add", ".");
        git(work, "commit", "-m", `Change ${n}`);
        git(work, "push", "-q", "origin", `HEAD:refs/heads/stack-${n}`, `HEAD:refs/pull/${n}/head`);
      }
    }

    system = await QueueSystem.start({
      workDir: path.join(dir, "runner"),
      jobConcurrency: 2,
      maxRunSeconds: 120,
    });
    await call("/createQueue", { ...queue, concurrency: 2 });
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh" },
    });
    for (const stack of STACKS) {
      for (const [i, n] of stack.entries()) {
        await call("/code-host/pull-request-events", {
          action: "opened",
          number: n,
          pull_request: {
            title: `Change ${n}`,
            state: "open",
            user: { login: "dev" },
            head: { ref: `stack-${n}`, sha: git(remote, "rev-parse", `refs/pull/${n}/head`) },
            base: { ref: i === 0 ? "main" : `stack-${stack[i - 1]}` },
          },
          repository: {
            name: repo.name,
            owner: { login: repo.owner },
            html_url: `https://${repo.host}/acme/stacks`,
          },
        });
      }
    }
  });

  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("a stack of three submitted from its top lands as three commits, bottom first, main only fast-forwarded", async () => {
    const before = git(remote, "rev-parse", "main");
    const top = await call("/submitPullRequest", { ...queue, pr: { number: 3 } });
    expect(top).to.deep.equal({});
    const ended = await untilEnded([1, 2, 3]);
    expect([1, 2, 3].map((n) => ended.get(n)?.state)).to.deep.equal(["MERGED", "MERGED", "MERGED"]);
    expect(subjectsSince(before)).to.deep.equal(["Change 1 (#1)", "Change 2 (#2)", "Change 3 (#3)"]);
    const parents = git(remote, "rev-list", "--parents", `${before}..main`).split("\n");
    expect(
      parents.every((line) => line.split(" ").length === 2),
      "each PR one single-parent commit",
    ).to.equal(true);
    expect(branchMoves(remote, "refs/heads/main").forced).to.deep.equal([]);
    // The three were tested as one block: one run held them all, in order.
    const history = (ended.get(3)?.history ?? []) as { reason: string; testRunId?: string }[];
    const runOf = (pr: Json | undefined) =>
      ((pr?.history ?? []) as { reason: string; testRunId?: string }[]).find(
        (t) => t.reason === "TEST_RUN_STARTED",
      )?.testRunId;
    expect(runOf(ended.get(1)))
      .to.be.a("string")
      .and.equal(runOf(ended.get(3)));
    expect(history.map((t) => t.reason)).to.include("MERGED");
  });

  it("a stack whose middle PR breaks the tests lands the bottom one and fails the middle and the top, naming it", async () => {
    const before = git(remote, "rev-parse", "main");
    await call("/submitPullRequest", { ...queue, pr: { number: 6 } });
    const ended = await untilEnded([4, 5, 6]);
    expect(ended.get(4)).to.include({ state: "MERGED" });
    expect(ended.get(5)).to.include({ state: "FAILED", failureReason: "TESTS_FAILED" });
    expect(ended.get(6)).to.include({ state: "FAILED", failureReason: "DEPENDS_ON_FAILED" });
    const last = ((ended.get(6)?.history ?? []) as { detail?: string }[]).at(-1);
    expect(last?.detail).to.equal("depends on #5, stacked below it, which failed");
    expect(subjectsSince(before)).to.deep.equal(["Change 4 (#4)"]);
    expect(branchMoves(remote, "refs/heads/main").forced).to.deep.equal([]);
  });

  it("shows the stack, waits NOT_READY without includeStack, and cancelling the middle cancels the top only", async () => {
    await call("/updateQueue", { ...queue, state: "PAUSED" });
    await call("/submitPullRequest", { ...queue, pr: { number: 9 }, includeStack: false });
    const waiting = await status(9);
    expect(waiting.state).to.equal("NOT_READY");
    expect(waiting.stack).to.deep.equal({ below: [8], above: [] });
    expect((waiting.readiness as Json).reason).to.match(/stacked on #8, which is not in the queue/);

    // Submitting the middle one queues the bottom one with it, and the top one it was waiting for.
    await call("/submitPullRequest", { ...queue, pr: { number: 8 } });
    const q = await call("/getQueue", queue);
    const listed = q.enqueuedPullRequests as { prNumber: number; state: string; stack?: Json }[];
    expect(listed.map((p) => [p.prNumber, p.state])).to.deep.equal([
      [7, "PENDING"],
      [8, "PENDING"],
      [9, "PENDING"],
    ]);
    expect(listed.map((p) => p.stack)).to.deep.equal([
      { below: [], above: [8, 9] },
      { below: [7], above: [9] },
      { below: [7, 8], above: [] },
    ]);

    await call("/cancelPullRequest", { ...queue, pr: { number: 8 } });
    expect(await status(8)).to.include({ state: "CANCELLED", cancellationReason: "CANCELLED_BY_USER" });
    expect(await status(9)).to.include({ state: "CANCELLED", cancellationReason: "CANCELLED_BY_USER" });
    expect(await status(7)).to.include({ state: "PENDING" });

    const before = git(remote, "rev-parse", "main");
    await call("/updateQueue", { ...queue, state: "RUNNING" });
    expect((await untilEnded([7])).get(7)).to.include({ state: "MERGED" });
    expect(subjectsSince(before)).to.deep.equal(["Change 7 (#7)"]);
  });

  it("refuses a stack when the queue takes none, and bad stack inputs, naming the field", async () => {
    expect((await call("/getQueue", queue)).maxStackSize, "the default").to.equal(32);
    await call("/updateQueue", { ...queue, maxStackSize: 0 });
    expect((await call("/getQueue", queue)).maxStackSize).to.equal(0);
    const response = await system.gw.post(
      "/submitPullRequest",
      { ...queue, pr: { number: 9 } },
      system.token,
    );
    const text = await response.text();
    expect(response.status, text).to.equal(409);
    expect(text).to.match(
      // #7 merged through this queue (the code host has not said it is closed): the stack ends above it.
      /pull request 9 is stacked on #8 and this queue takes no stacked pull requests \(maxStackSize is 0\)/,
    );
    const notBoolean = await system.gw.post(
      "/submitPullRequest",
      { ...queue, pr: { number: 9 }, includeStack: "yes" },
      system.token,
    );
    expect(notBoolean.status).to.equal(400);
    expect(await notBoolean.text()).to.match(/includeStack.*must be a boolean/);
    const tooLarge = await system.gw.post("/updateQueue", { ...queue, maxStackSize: 33 }, system.token);
    expect(tooLarge.status).to.equal(400);
    expect(await tooLarge.text()).to.match(/maxStackSize/);
  });

  it("resubmitting a cancelled stack whose bottom already merged queues the rest on the target and lands it", async () => {
    await call("/updateQueue", { ...queue, maxStackSize: 32 });
    const before = git(remote, "rev-parse", "main");
    await call("/submitPullRequest", { ...queue, pr: { number: 9 } });
    const ended = await untilEnded([8, 9]);
    expect([8, 9].map((n) => ended.get(n)?.state)).to.deep.equal(["MERGED", "MERGED"]);
    expect(subjectsSince(before)).to.deep.equal(["Change 8 (#8)", "Change 9 (#9)"]);
  });
});
