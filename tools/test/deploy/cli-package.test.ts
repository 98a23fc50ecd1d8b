import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const packageDir = path.join(root, "tools/cli-package");

/** The CLI as users get it without a checkout: `npm pack` of tools/cli-package, installed with its `bin`. */
describe("the mainline CLI as an npm package", function () {
  this.timeout(120_000);
  let dir: string;
  let bin: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-package-"));
    const npm = (args: string[], cwd: string) => {
      const run = spawnSync("npm", [...args, "--offline", "--no-audit", "--no-fund"], {
        cwd,
        encoding: "utf8",
      });
      expect(run.status, `npm ${args.join(" ")}: ${run.stderr}`).to.equal(0);
    };
    // prepack bundles tools/cli into mainline.mjs.
    npm(["pack", "--pack-destination", dir], packageDir);
    const [tarball] = (await readdir(dir)).filter((f) => f.endsWith(".tgz"));
    expect(tarball, "npm pack made a tarball").to.be.a("string");
    npm(["install", "--global", "--prefix", path.join(dir, "prefix"), path.join(dir, tarball!)], dir);
    bin = path.join(dir, "prefix", "bin", "mainline");
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("installs a `mainline` command that runs with node alone, outside the repository", () => {
    expect(existsSync(bin)).to.equal(true);
    const env = { PATH: path.dirname(process.execPath), HOME: dir };
    const help = spawnSync(bin, ["--help"], { cwd: dir, env, encoding: "utf8" });
    expect(help.status, help.stderr).to.equal(0);
    expect(help.stdout).to.include("Usage: mainline");
    const simulated = spawnSync(bin, ["simulate", "--prs", "20", "--json"], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    expect(simulated.status, simulated.stderr).to.equal(0);
    expect(JSON.parse(simulated.stdout)).to.include({ prs: 20, merged: 20 });
  });

  it("talks to no Mainline it was not pointed at: unreachable is exit 3", () => {
    const env = {
      PATH: path.dirname(process.execPath),
      HOME: dir,
      MAINLINE_URL: "http://127.0.0.1:9",
      MAINLINE_TOKEN: "x",
    };
    const run = spawnSync(bin, ["queue", "list"], { cwd: dir, env, encoding: "utf8" });
    expect(run.status, run.stderr).to.equal(3);
  });
});
