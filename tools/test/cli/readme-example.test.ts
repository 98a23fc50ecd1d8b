import { expect } from "chai";
import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MainlineFixture } from "./mainline-fixture.js";
import { readmeShellBlock } from "./readme-commands.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The README's CLI example, read from the README itself so the two cannot drift: every line runs, in order,
 * against the real services, and the example ends with the PR merged. Only the address and the token differ
 * from `make dev`'s, and the test checks that the README names make dev's before swapping them.
 */
describe("the README's mainline CLI example", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-readme-"));
    system = await MainlineFixture.start(dir);
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs top to bottom against the services and ends with the PR merged", async () => {
    const lines = readmeShellBlock(path.join(root, "README.md"), "## The mainline CLI");
    const env: Record<string, string | undefined> = system.env();
    const ran: string[] = [];
    let last: { code: number; stdout: string; stderr: string } | undefined;
    for (const words of lines) {
      const shown = words.join(" ");
      if (words[0] === "export") {
        for (const assignment of words.slice(1)) {
          const name = assignment.slice(0, assignment.indexOf("="));
          const value = assignment.slice(name.length + 1);
          if (name === "PATH") {
            // The bin the README puts on PATH must be there; the commands themselves run in process.
            expect(value).to.equal("$PWD/node_modules/.bin:$PATH");
            await access(path.join(root, "node_modules/.bin/mainline"));
          } else if (name === "MAINLINE_URL") {
            // make dev's address, on the port make dev reads (GATEWAY_PORT, 8080 unset).
            expect(assignment).to.equal("MAINLINE_URL=http://127.0.0.1:${GATEWAY_PORT:-8080}");
          } else if (name === "MAINLINE_TOKEN") {
            expect(assignment).to.equal("MAINLINE_TOKEN=$(cat .data/dev-api-token)");
          } else {
            expect(value, `${name} has a plain value`).to.match(/^[^$`]+$/);
            env[name] = value;
          }
        }
        continue;
      }
      const argv = words[0] === "npx" && words[1] === "mainline" ? words.slice(2) : words.slice(1);
      expect(words[0] === "mainline" || words[0] === "npx", `a line the test can run: ${shown}`).to.equal(
        true,
      );
      last = await system.run(argv, { env, cwd: root });
      ran.push(shown);
      expect(last.code, `\`${shown}\` exited ${last.code}: ${last.stderr}`).to.equal(0);
    }
    expect(ran.at(-1), "the example ends by waiting for the PR").to.match(/^mainline status \d+ --wait$/);
    expect(last!.stdout).to.match(/^PR #\d+ MERGED: /);
  });
});
