import { expect } from "chai";
import path from "node:path";
import { LocalRemote } from "../../src/demo/local-remote.js";
import type { CliRun, MainlineFixture } from "./mainline-fixture.js";

type FileChanges = Parameters<typeof LocalRemote.create>[1];

/**
 * A repository as a new user sets one up with the CLI: a local bare remote holding `files`, connected with a
 * COMMAND runner (`sh test.sh`), a queue without batching, and each PR pushed and announced (`pr event opened`).
 * `mainline` runs the CLI in the working clone with MAINLINE_REPO set to `repo`.
 */
export async function connectedRepository(
  system: MainlineFixture,
  dir: string,
  repo: string,
  files: FileChanges,
  prs: { number: number; title: string; files: FileChanges }[],
): Promise<{ remote: LocalRemote; mainline: (...argv: string[]) => Promise<CliRun> }> {
  const remote = await LocalRemote.create(path.join(dir, repo.split("/").pop()!), files);
  const mainline = (...argv: string[]) =>
    system.run(argv, { cwd: remote.workDir, env: system.env({ MAINLINE_REPO: repo }) });
  const connected = await mainline(
    "repo",
    "connect",
    "--remote",
    remote.remoteDir,
    "--command",
    "sh test.sh",
  );
  expect(connected.code, connected.stderr).to.equal(0);
  expect((await mainline("queue", "create", "--no-batch")).code).to.equal(0);
  for (const pr of prs) {
    const branch = `feature-${pr.number}`;
    await remote.pushPullRequest(pr.number, branch, pr.title, pr.files);
    const opened = await mainline(
      "pr",
      "event",
      "opened",
      String(pr.number),
      "--head",
      branch,
      "--title",
      pr.title,
    );
    expect(opened.code, opened.stderr).to.equal(0);
  }
  return { remote, mainline };
}
