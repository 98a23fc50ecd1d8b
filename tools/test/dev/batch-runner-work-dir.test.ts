import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { git } from "@mainline/testing";
import { defaultBatchRunnerWorkDir } from "../../src/dev/batch-runner-work-dir.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The package.json Node would apply to a file in `dir`: the nearest one above it, if any. */
function enclosingPackageJson(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, "package.json"))) return path.join(at, "package.json");
    if (path.dirname(at) === at) return undefined;
  }
}

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
    const workDir = defaultBatchRunnerWorkDir();
    expect(path.relative(root, workDir).startsWith("..")).to.equal(true);
    expect(enclosingPackageJson(workDir)).to.equal(undefined);
    const run = await runTestIn(path.join(workDir, "worktrees"));
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
