import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { claimWorkDir } from "../../src/git/work-dir-claim.js";

describe("batch-runner: claiming a folder of its own in the work dir", () => {
  let base: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), "mainline-claim-"));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it("gives each live claimer its own folder, and hands a released one to the next", async () => {
    const one = await claimWorkDir(base);
    const two = await claimWorkDir(base);
    expect([one.dir, two.dir]).to.deep.equal([join(base, "replica-0"), join(base, "replica-1")]);
    await one.release();
    const three = await claimWorkDir(base);
    expect(three.dir).to.equal(join(base, "replica-0"));
    await Promise.all([two.release(), three.release()]);
    expect((await readdir(base)).filter((name) => name.endsWith(".owner"))).to.deep.equal([]);
  });

  it("takes over the folder of a process that is gone, and removes only its leftover worktrees", async () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    await writeFile(
      join(base, "replica-0.owner"),
      JSON.stringify({ host: hostname(), pid: gone, claim: "x" }),
    );
    await mkdir(join(base, "replica-0", "worktrees", "wt-left"), { recursive: true });
    await mkdir(join(base, "replica-0", "mirrors", "app.git"), { recursive: true });
    const claim = await claimWorkDir(base);
    expect(claim.dir).to.equal(join(base, "replica-0"));
    expect(existsSync(join(base, "replica-0", "worktrees", "wt-left"))).to.equal(false);
    // The mirrors stay: a restart fetches only what changed.
    expect(existsSync(join(base, "replica-0", "mirrors", "app.git"))).to.equal(true);
    await claim.release();
  });

  it("leaves a live process's folder alone, even one on another host that still beats", async () => {
    const live = [
      { host: hostname(), pid: process.ppid, claim: "parent" },
      { host: "another-host", pid: 1, claim: "elsewhere" },
    ];
    for (const [slot, owner] of live.entries()) {
      await writeFile(join(base, `replica-${slot}.owner`), JSON.stringify(owner));
      await mkdir(join(base, `replica-${slot}`, "worktrees", "wt-running"), { recursive: true });
    }
    const claim = await claimWorkDir(base);
    expect(claim.dir).to.equal(join(base, "replica-2"));
    for (const slot of [0, 1])
      expect(existsSync(join(base, `replica-${slot}`, "worktrees", "wt-running"))).to.equal(true);
    await claim.release();
  });
});
