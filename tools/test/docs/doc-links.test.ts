import { expect } from "chai";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brokenLinks, headingAnchors, markdownFiles } from "./doc-links.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** The README is a quickstart that links into docs/: a moved section or a renamed heading must not strand a link. */
describe("links between the docs", () => {
  it("every relative link of README.md, docs/ and the other Markdown files leads to a file and a heading", () => {
    const files = markdownFiles(root);
    expect(files).to.include.members(["README.md", "docs/performance.md", "deploy/helm/mainline/README.md"]);
    expect(brokenLinks(root, files)).to.deep.equal([]);
  });

  it("gives headings GitHub's anchors", () => {
    const anchors = headingAnchors(
      "# Mainline\n## See it work: make demo\n```sh\n# not a heading\n```\n### `mainline test` and quarantining\n" +
        "## Changing a PR's priority\n## Tests\n## Tests\n",
    );
    expect([...anchors]).to.deep.equal([
      "mainline",
      "see-it-work-make-demo",
      "mainline-test-and-quarantining",
      "changing-a-prs-priority",
      "tests",
      "tests-1",
    ]);
  });

  describe("in a tree with broken links", () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "mainline-doc-links-"));
      await mkdir(join(dir, "docs"));
      await writeFile(
        join(dir, "README.md"),
        "# Top\n\nSee [the CLI](docs/cli.md#every-command), [gone](docs/gone.md), [no heading](docs/cli.md#nope),\n" +
          "[here](#top), [not here](#missing), [out](https://example.com/x.md), `[code](docs/code.md)`, and\n" +
          "![a picture](docs/pic.png).\n\n```md\n[in a block](docs/block.md)\n```\n",
      );
      await writeFile(
        join(dir, "docs/cli.md"),
        "# The CLI\n\n## Every command\n\nBack to [the top](../README.md#top).\n",
      );
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it("names each link to a missing file or heading, and nothing else", () => {
      expect(brokenLinks(dir, markdownFiles(dir))).to.deep.equal([
        "README.md: docs/gone.md (no file docs/gone.md)",
        "README.md: docs/cli.md#nope (no heading gives #nope)",
        "README.md: #missing (no heading gives #missing)",
        "README.md: docs/pic.png (no file docs/pic.png)",
      ]);
    });
  });
});
