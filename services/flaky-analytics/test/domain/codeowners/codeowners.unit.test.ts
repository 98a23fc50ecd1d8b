import { expect } from "chai";
import { Codeowners, compileCodeownersPattern } from "../../../src/domain/codeowners/index.js";

// Modelled on the example in GitHub's CODEOWNERS documentation.
const FILE = [
  "# Lines starting with '#' are comments.",
  "",
  "*       @global-owner1 @global-owner2",
  "*.js    @js-owner #This is an inline comment.",
  "*.go docs@example.com",
  "*.txt @octo-org/octocats",
  "/build/logs/ @doctocat",
  "docs/*  docs@example.com",
  "apps/ @octocat",
  "/docs/ @doctocat",
  "/scripts/ @doctocat @octocat",
  "**/logs @octocat",
  "/apps/ @octocat",
  "/apps/github",
  "\\#notes.md @hash-owner",
  "space\\ dir/ @spacey",
  "",
].join("\n");

describe("Codeowners", () => {
  const owners = Codeowners.parse(FILE);

  it("gives the owners of the last matching pattern", () => {
    expect(owners.ownersOf("README.md")).to.deep.equal(["@global-owner1", "@global-owner2"]);
    expect(owners.ownersOf("src/app.js")).to.deep.equal(["@js-owner"]);
    expect(owners.ownersOf("cmd/main.go")).to.deep.equal(["docs@example.com"]);
    expect(owners.ownersOf("notes/todo.txt")).to.deep.equal(["@octo-org/octocats"]);
  });

  it("anchors leading-slash patterns to the root and matches plain directories anywhere", () => {
    expect(owners.ownersOf("docs/guide.md")).to.deep.equal(["@doctocat"]);
    expect(owners.ownersOf("src/docs/guide.md")).to.deep.equal(["@global-owner1", "@global-owner2"]);
    // "/build/logs/" matches, but the later "**/logs" matches too, and the last match wins.
    expect(owners.ownersOf("build/logs/2025/out.log")).to.deep.equal(["@octocat"]);
    expect(owners.ownersOf("src/build/logs/out.log")).to.deep.equal(["@octocat"]);
    expect(owners.ownersOf("services/apps/web/index.html")).to.deep.equal(["@octocat"]);
    expect(owners.ownersOf("scripts/deploy.sh")).to.deep.equal(["@doctocat", "@octocat"]);
  });

  it("a trailing lone * owns one level only", () => {
    expect(owners.ownersOf("guides/docs/getting-started.md")).to.deep.equal([
      "@global-owner1",
      "@global-owner2",
    ]);
    const docsOnly = Codeowners.parse("docs/* docs@example.com");
    expect(docsOnly.ownersOf("docs/getting-started.md")).to.deep.equal(["docs@example.com"]);
    expect(docsOnly.ownersOf("docs/build-app/troubleshooting.md")).to.deep.equal([]);
  });

  it("a pattern without owners leaves the files unowned", () => {
    expect(owners.ownersOf("apps/github/index.js")).to.deep.equal([]);
    expect(owners.ownersOf("apps/gitlab/index.html")).to.deep.equal(["@octocat"]);
  });

  it("reads escaped # and spaces as part of the pattern, and inline comments as comments", () => {
    expect(owners.ownersOf("#notes.md")).to.deep.equal(["@hash-owner"]);
    expect(owners.ownersOf("space dir/a.md")).to.deep.equal(["@spacey"]);
    expect(owners.rules.find((rule) => rule.pattern === "*.js")?.owners).to.deep.equal(["@js-owner"]);
  });

  it("accepts paths as runners write them", () => {
    expect(owners.ownersOf("./scripts/deploy.sh")).to.deep.equal(["@doctocat", "@octocat"]);
    expect(owners.ownersOf("/scripts/deploy.sh")).to.deep.equal(["@doctocat", "@octocat"]);
    expect(owners.ownersOf("scripts\\deploy.sh")).to.deep.equal(["@doctocat", "@octocat"]);
    expect(owners.ownersOf("")).to.deep.equal([]);
  });

  it("is case-sensitive", () => {
    expect(Codeowners.parse("/Docs/ @a").ownersOf("docs/x.md")).to.deep.equal([]);
  });

  it("skips lines GitHub would reject, reporting each with its line, and keeps the rest", () => {
    const parsed = Codeowners.parse(
      ["*.md @docs", "!secret.md @nobody", "[ab].txt @ranges", "*.py not-an-owner", "*.rb @ruby"].join("\n"),
    );
    expect(parsed.problems.map((problem) => problem.line)).to.deep.equal([2, 3, 4]);
    expect(parsed.problems[2]?.message).to.contain('"not-an-owner"');
    expect(parsed.ownersOf("a.rb")).to.deep.equal(["@ruby"]);
    expect(parsed.ownersOf("secret.md")).to.deep.equal(["@docs"]);
  });

  it("handles an empty file and CRLF line endings", () => {
    expect(Codeowners.parse("").ownersOf("a.js")).to.deep.equal([]);
    expect(Codeowners.parse("*.js @a\r\n*.ts @b\r\n").ownersOf("x.ts")).to.deep.equal(["@b"]);
  });
});

describe("compileCodeownersPattern", () => {
  const cases: Array<[string, Record<string, boolean>]> = [
    ["foo", { foo: true, "foo.txt": false, "foo/bar": true, "bar/foo": true, "bar/foo/baz": true }],
    ["/foo", { foo: true, "foo/bar": true, "bar/foo": false }],
    ["foo/", { foo: false, "foo/bar": true, "bar/foo/baz": true }],
    ["foo/bar", { "foo/bar": true, "foo/bar/baz": true, "baz/foo/bar": false, "foo/bart": false }],
    ["/*", { foo: true, "foo/bar": false }],
    ["f*", { foo: true, "bar/foo/baz": true, xfoo: false }],
    ["foo/*.txt", { "foo/bar.txt": true, "foo/bar/baz.txt": false, "qux/foo/bar.txt": false }],
    ["foo/*/baz", { "foo/baz": false, "foo/bar/baz": true, "foo/bar/baz/qux": true }],
    ["f?o", { foo: true, fo: false, fooo: false }],
    ["f\\*o", { foo: false, "f*o": true }],
    ["**/foo/bar", { "foo/bar": true, "qux/foo/bar/baz": true, "foo/baz/bar": false }],
    ["foo/**/bar", { "foo/bar": true, "foo/qux/quux/bar/baz": true, "qux/foo/bar": false }],
    ["foo/bar/**", { "foo/bar": false, "foo/bar/baz/qux": true }],
    ["*.test.ts", { "src/a.test.ts": true, "src/a.ts": false }],
    ["a.b(c)+", { "a.b(c)+": true, "aXb(c)": false }],
  ];
  for (const [pattern, paths] of cases) {
    it(`matches "${pattern}" as GitHub does`, () => {
      const matcher = compileCodeownersPattern(pattern);
      for (const [path, expected] of Object.entries(paths)) {
        expect(matcher.test(path), `${pattern} vs ${path}`).to.equal(expected);
      }
    });
  }
});
