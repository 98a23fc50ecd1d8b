import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** tools/scripts/test.sh on the given spec patterns, without its lint and type-check gates. */
function runTests(
  patterns: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; output: string; lastLine: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("tools/scripts/test.sh", patterns, {
      cwd: root,
      env: { ...process.env, MAINLINE_TEST_GATES: "0", MAINLINE_TEST_JOBS: "2", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (status) =>
      resolve({ status, output, lastLine: output.trimEnd().split("\n").at(-1) ?? "" }),
    );
  });
}

describe("make test's runner (tools/scripts/test.sh) guards itself", function () {
  this.timeout(60_000);
  let dir: string;
  const probe = (name: string) => path.join(dir, name);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-test-runner-"));
    const files: Record<string, string> = {
      "passing.test.ts": 'describe("passing", () => {\n  it("one", () => {});\n  it("two", () => {});\n});\n',
      // The focused call is spelled in pieces so that this file holds no committed focus of its own.
      "only.test.ts": `describe("only", () => {\n  it.${"only"}("focused", () => {});\n  it("left out", () => {});\n});\n`,
      "failing.test.ts":
        'describe("failing", () => {\n  it("fails", () => {\n    throw new Error("the failing probe fails");\n  });\n});\n',
      "spawns.unit.test.ts":
        'import { execFileSync } from "node:child_process";\ndescribe("spawns", () => {\n  it("runs true", () => {\n    execFileSync("true");\n  });\n});\n',
    };
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("ends with the one line CI reads, green when every test passed", async () => {
    const run = await runTests([probe("passing.test.ts")]);
    expect(run.status, run.output).to.equal(0);
    expect(run.lastLine).to.equal("2 passed, 0 failed, 0 skipped");
  });

  // One run with every way to go wrong (each is seen to turn the run red on its own in the commit's report):
  // a failed test, a committed .only, a pattern that matches nothing, too few tests, a unit test that spawns.
  it("is red, naming each cause in its output and counting each in that line", async () => {
    const missing = path.join(dir, "moved-away/**/*.test.ts");
    const run = await runTests(
      ["passing", "failing", "only", "spawns.unit"].map((name) => probe(`${name}.test.ts`)).concat(missing),
      { MAINLINE_TEST_FLOOR: "100" },
    );
    expect(run.status).to.not.equal(0);
    expect(run.output).to.include("the failing probe fails");
    expect(run.output).to.match(/`\.only`/);
    expect(run.output).to.include(`no test file matches ${missing}`);
    expect(run.output).to.include("tests ran, fewer than the 100 the suite has at least");
    expect(run.output).to.include('child_process.execFileSync("true") in a *.unit.test.ts file');
    expect(run.lastLine).to.equal("2 passed, 5 failed, 0 skipped");
  });
});
