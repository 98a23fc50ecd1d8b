import { expect } from "chai";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { branchNameProblem, pullRefPatternProblem, refNameProblem } from "@mainline/contract";
import { remoteUrlProblem } from "../../src/domain/remote-url.js";

const NAMES = [
  "main",
  "release/1.2",
  "feature/é-ü",
  "a-b_c.d",
  "x.lockx",
  "main;rm -rf x",
  "../../etc",
  "-c core.sshCommand=touch /tmp/pwned",
  "--upload-pack=x",
  "HEAD",
  "a..b",
  "a.lock",
  "a/.hidden",
  ".hidden",
  "a b",
  "a\tb",
  "a\nb",
  "a\x7fb",
  "a~1",
  "a^",
  "a:b",
  "a?",
  "a*",
  "a[b",
  "a\\b",
  "x@{1}",
  "/a",
  "a/",
  "a//b",
  "a.",
  "mainline/test/main/run-1_abc",
];

describe("git ref names: the API's check agrees with git check-ref-format", () => {
  let repo: string;
  before(() => {
    repo = mkdtempSync(join(tmpdir(), "ref-names-"));
    execFileSync("git", ["init", "-q", repo]);
  });
  after(() => rmSync(repo, { recursive: true, force: true }));

  const git = (...args: string[]) => spawnSync("git", args, { cwd: repo }).status === 0;

  for (const name of NAMES) {
    it(`judges ${JSON.stringify(name)} as git check-ref-format --branch does`, () => {
      const accepted = branchNameProblem(name) === null;
      expect(accepted, branchNameProblem(name) ?? "accepted").to.equal(
        git("check-ref-format", "--branch", name),
      );
    });
  }

  it('refuses "@" and names over 255 bytes, which git would take but no queue needs', () => {
    expect(branchNameProblem("@")).to.match(/"@"/);
    expect(branchNameProblem("é".repeat(128))).to.match(/at most 255 bytes/);
    expect(branchNameProblem("b".repeat(255))).to.equal(null);
  });

  it("checks a pull-ref pattern as the full ref it becomes", () => {
    expect(pullRefPatternProblem("refs/pull/{number}/head")).to.equal(null);
    expect(pullRefPatternProblem("refs/merge-requests/{number}/head")).to.equal(null);
    expect(git("check-ref-format", "refs/pull/1/head")).to.equal(true);
    expect(pullRefPatternProblem("refs/pull/7/head")).to.match(/\{number\}/);
    expect(pullRefPatternProblem("--upload-pack=touch /tmp/x {number}")).to.match(/refs\//);
    expect(pullRefPatternProblem("refs/pull/{number}/head --force")).to.match(/spaces/);
    expect(pullRefPatternProblem("refs/pull/{number}/../head")).to.match(/\.\./);
    expect(refNameProblem("refs/pull/1/head:refs/heads/main")).to.match(/:/);
  });
});

describe("git remote URLs", () => {
  for (const url of [
    "https://github.com/acme/widgets.git",
    "http://git.internal:8080/acme/widgets",
    "ssh://git@github.com/acme/widgets.git",
    "git://git.kernel.org/pub/scm/git/git.git",
    "git@github.com:acme/widgets.git",
    "github.com:acme/widgets.git",
    "file:///srv/git/widgets.git",
    "/srv/git/widgets.git",
    "ssh://git@[::1]:22/acme/widgets.git",
  ]) {
    it(`accepts ${url}`, () => expect(remoteUrlProblem(url)).to.equal(null));
  }
  for (const [url, rule] of [
    ["ext::sh -c touch% /tmp/pwned", /spaces/],
    ["ext::sh", /helper transports/],
    ["fd::17", /helper transports/],
    ["https://github.com/acme/widgets.git\nurl=ext::sh", /control characters/],
    ["-uhttps://x", /begin with "-"/],
    ["ssh://-oProxyCommand=touch/x", /begins with "-"/],
    ["ftp://example.com/repo.git", /must be an https, http, ssh, git, file URL/],
    ["", /must not be empty/],
    [`https://e.com/${"a".repeat(2048)}`, /at most 2048/],
  ] as const) {
    it(`refuses ${JSON.stringify(url.slice(0, 40))}`, () => expect(remoteUrlProblem(url)).to.match(rule));
  }
});
