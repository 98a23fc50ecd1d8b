import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MainlineFixture } from "./mainline-fixture.js";
import { readmeShellBlock } from "./readme-commands.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The README's stack example (issue 28), read from the README itself: every line runs, in order, against the real
 * services (the address and the token set as the first example sets them), and it ends with the three PRs merged.
 */
describe("the README's stacked pull requests example", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-readme-stack-"));
    system = await MainlineFixture.start(dir);
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("queues the stack from its top, shows it, and ends with the three merged", async () => {
    const lines = readmeShellBlock(path.join(root, "README.md"), "### Queueing a stack of pull requests");
    const env: Record<string, string | undefined> = system.env();
    const outputs = new Map<string, string>();
    for (const words of lines) {
      const shown = words.join(" ");
      if (words[0] === "export") {
        for (const assignment of words.slice(1)) {
          const name = assignment.slice(0, assignment.indexOf("="));
          expect(name, "the block sets only the repository").to.equal("MAINLINE_REPO");
          env[name] = assignment.slice(name.length + 1);
        }
        continue;
      }
      expect(words[0], `a line the test can run: ${shown}`).to.equal("mainline");
      const ran = await system.run(words.slice(1), { env, cwd: root });
      expect(ran.code, `\`${shown}\` exited ${ran.code}: ${ran.stderr}`).to.equal(0);
      outputs.set(shown, ran.stdout);
    }
    expect(outputs.get("mainline status 52")).to.contain("stack #51 ← [#52] ← #53");
    const last = [...outputs.entries()].at(-1)!;
    expect(last[0]).to.equal("mainline status 51 52 53 --wait");
    for (const n of [51, 52, 53]) expect(last[1]).to.match(new RegExp(`#${n}\\s+MERGED`));
  });
});
