import { expect } from "chai";
import { replayCommit } from "../../src/git/replay-commit.js";
import { RemoteFixture } from "./remote-fixture.js";

describe("replayCommit", () => {
  let fx: RemoteFixture;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
  });

  afterEach(() => fx.dispose());

  it("copies a commit onto a new parent, keeping author, committer and message, the same way every time", async () => {
    const base = await fx.clone.text(["rev-parse", "HEAD"]);
    const original = await fx.commit({ "a.txt": "a\n" }, "Add a (#4)\n\nWhy it matters.\n\nMainline-PR: 4");
    await fx.clone.run(["checkout", "--quiet", "--detach", base]);
    const newParent = await fx.commit({ "b.txt": "b\n" }, "Add b");
    const tree = await fx.clone.text(["rev-parse", `${original}^{tree}`]);

    const copy = await replayCommit(fx.clone, original, [newParent], tree);
    const again = await replayCommit(fx.clone, original, [newParent], tree);

    expect(copy).to.not.equal(original);
    expect(again).to.equal(copy);
    const show = (sha: string) =>
      fx.clone.text(["show", "--no-patch", "--format=%an <%ae> %ad%n%cn <%ce> %cd%n%B", sha]);
    expect(await show(copy)).to.equal(await show(original));
    expect(await fx.clone.text(["rev-parse", `${copy}^`])).to.equal(newParent);
    expect(await fx.clone.text(["rev-parse", `${copy}^{tree}`])).to.equal(tree);
  });

  it("returns the commit itself when parents and tree are unchanged", async () => {
    const parent = await fx.clone.text(["rev-parse", "HEAD"]);
    const sha = await fx.commit({ "a.txt": "a\n" }, "Add a");
    const tree = await fx.clone.text(["rev-parse", `${sha}^{tree}`]);
    expect(await replayCommit(fx.clone, sha, [parent], tree)).to.equal(sha);
  });
});
