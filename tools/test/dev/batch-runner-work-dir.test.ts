import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readlink, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { git } from "@mainline/testing";
import {
  batchRunnerWorkDir,
  enclosingPackageJson,
  prepareBatchRunnerWorkDir,
  WORK_DIR_LINK,
} from "../../src/dev/batch-runner-work-dir.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

// A repository with a CommonJS test and no package.json of its own: in a clean clone, Node runs test.js as
// CommonJS. The batch-runner's worktrees must behave the same.
const COMMONJS_TEST = `const assert = require("node:assert");\nassert.strictEqual(1 + 1, 2);\nconsole.log("ok");\n`;

describe("make dev: where the batch-runner's worktrees live", () => {
  let remote: string;
  const made: string[] = [];

  before(async () => {
    remote = await mkdtemp(path.join(tmpdir(), "mainline-cjs-repo-"));
    made.push(remote);
    git(remote, "init", "--quiet", "--initial-branch=main");
    await writeFile(path.join(remote, "test.js"), COMMONJS_TEST);
    git(remote, "add", "test.js");
    git(remote, "commit", "--quiet", "-m", "CommonJS test");
  });
  // .data/ is make dev's; the test leaves it as it found it (rmdir: only when empty, so never make dev's data).
  const hadData = existsSync(path.join(root, ".data"));
  after(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
    if (!hadData) await rmdir(path.join(root, ".data")).catch(() => undefined);
  });

  /** Clones the repository under `parent` and runs its test there, as the batch-runner's command would. */
  async function runTestIn(parent: string): Promise<{ status: number | null; output: string }> {
    await mkdir(parent, { recursive: true });
    const checkout = await mkdtemp(path.join(parent, "worktree-"));
    made.push(checkout);
    git(parent, "clone", "--quiet", remote, checkout);
    const run = spawnSync(process.execPath, ["test.js"], { cwd: checkout, encoding: "utf8" });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  }

  it("is outside any project by default, so a repository's tests pass as in a clean clone", async () => {
    const workDir = batchRunnerWorkDir(path.join(root, ".data"));
    expect(path.relative(root, workDir).startsWith("..")).to.equal(true);
    expect(enclosingPackageJson(workDir)).to.equal(undefined);
    const run = await runTestIn(path.join(workDir, "worktrees"));
    expect(run, run.output).to.deep.include({ status: 0 });
  });

  it("is each instance's own: two data dirs in the checkout (two make dev) never share one, and each links to it", async () => {
    const [one, two] = [
      path.join(root, ".data", "work-dir-test-a"),
      path.join(root, ".data", "work-dir-test-b"),
    ];
    await Promise.all([one, two].map((dir) => mkdir(dir, { recursive: true })));
    made.push(one, two);
    const [workOne, workTwo] = [await prepareBatchRunnerWorkDir(one), await prepareBatchRunnerWorkDir(two)];
    made.push(path.dirname(workOne), path.dirname(workTwo));
    expect(workOne).to.not.equal(workTwo);
    for (const work of [workOne, workTwo]) expect(enclosingPackageJson(work), work).to.equal(undefined);
    expect(path.relative(workOne, workTwo).startsWith("..")).to.equal(true);
    // The data dir says where its work dir is, and says it again unchanged on the next start.
    expect(await readlink(path.join(one, WORK_DIR_LINK))).to.equal(workOne);
    expect(await prepareBatchRunnerWorkDir(one)).to.equal(workOne);
    expect(await readlink(path.join(one, WORK_DIR_LINK))).to.equal(workOne);
  });

  it("lives inside a data dir that is outside any project (a test's temp dir): removing that removes it", async () => {
    const data = await mkdtemp(path.join(tmpdir(), "mainline-dev-temp-"));
    made.push(data);
    const work = await prepareBatchRunnerWorkDir(data);
    expect(work).to.equal(path.join(data, "batch-runner"));
    expect(existsSync(path.join(data, WORK_DIR_LINK))).to.equal(false);
    const run = await runTestIn(path.join(work, "worktrees"));
    expect(run, run.output).to.deep.include({ status: 0 });
  });

  it("matters: the same test fails under Mainline's checkout, the old .data/ location", async () => {
    expect(enclosingPackageJson(path.join(root, ".data"))).to.equal(path.join(root, "package.json"));
    const parent = path.join(root, ".data", "batch-runner-work-dir-test");
    made.push(parent);
    const run = await runTestIn(parent);
    expect(run.status).to.not.equal(0);
    expect(run.output).to.contain("require is not defined in ES module scope");
  });
});
