import { expect } from "chai";
import {
  apiUrlFrom,
  CliError,
  formatTable,
  LiveDisplay,
  parsePullRequestRef,
  parseRepositoryRef,
  quarantineVerdict,
  verdictExitCode,
} from "@mainline/cli-src";
import { CapturedSink } from "./mainline-fixture.js";

describe("mainline CLI: pure parts", () => {
  describe("the quarantine decision of `mainline test`", () => {
    const flaky = { id: "id-flaky", name: "cart › checkout" };
    const real = { id: "id-real", name: "cart › totals" };
    const on = { isDisabled: false, testIds: ["id-flaky"] };

    it("forgives a failed command only when every failing test is quarantined", () => {
      const all = quarantineVerdict(1, [flaky], on);
      expect(all).to.deep.equal({ kind: "all-quarantined", failing: [flaky] });
      expect(verdictExitCode(all, 1)).to.equal(0);
      const some = quarantineVerdict(2, [flaky, real], on);
      expect(some).to.deep.equal({
        kind: "some-not-quarantined",
        quarantined: [flaky],
        notQuarantined: [real],
      });
      expect(verdictExitCode(some, 2)).to.equal(2);
    });

    it("never forgives when quarantining is off or the reports name no failure", () => {
      expect(
        verdictExitCode(quarantineVerdict(5, [flaky], { isDisabled: true, testIds: ["id-flaky"] }), 5),
      ).to.equal(5);
      expect(quarantineVerdict(5, [], on)).to.deep.equal({ kind: "no-failing-tests-reported" });
      expect(verdictExitCode(quarantineVerdict(5, [], on), 5)).to.equal(5);
      expect(verdictExitCode(quarantineVerdict(0, [flaky], on), 0)).to.equal(0);
    });
  });

  describe("command-line values", () => {
    it("reads --repo as host/owner/name or as the repository's URL", () => {
      const expected = { host: "github.com", owner: "acme", name: "app" };
      expect(parseRepositoryRef("github.com/acme/app")).to.deep.equal(expected);
      expect(parseRepositoryRef("https://github.com/acme/app.git")).to.deep.equal(expected);
      expect(() => parseRepositoryRef("acme/app")).to.throw(CliError, "--repo must be host/owner/name");
      expect(() => parseRepositoryRef("github.com//app")).to.throw(CliError);
    });

    it("tells PR numbers from head branches", () => {
      expect(parsePullRequestRef("12")).to.deep.equal({ number: 12 });
      expect(parsePullRequestRef("#12")).to.deep.equal({ number: 12 });
      expect(parsePullRequestRef("feature/12")).to.deep.equal({ branch: "feature/12" });
      expect(() => parsePullRequestRef("0")).to.throw(CliError, "positive whole number");
    });

    it("adds /v1 to MAINLINE_URL when it is missing, and defaults to make dev's address", () => {
      expect(apiUrlFrom({})).to.equal("http://127.0.0.1:8080/v1");
      expect(apiUrlFrom({ MAINLINE_URL: "https://mainline.acme.dev/" })).to.equal(
        "https://mainline.acme.dev/v1",
      );
      expect(apiUrlFrom({ MAINLINE_URL: "https://acme.dev/mainline/v1" })).to.equal(
        "https://acme.dev/mainline/v1",
      );
      expect(() => apiUrlFrom({ MAINLINE_URL: "ftp://x" })).to.throw(CliError, "http:// or https://");
    });
  });

  describe("output", () => {
    it("aligns table columns without trailing blanks", () => {
      expect(
        formatTable(
          ["PR", "STATE"],
          [
            ["#1", "MERGED"],
            ["#10", "FAILED"],
          ],
        ),
      ).to.deep.equal(["PR   STATE", "#1   MERGED", "#10  FAILED"]);
    });

    it("redraws the frame in place on a terminal", () => {
      const sink = new CapturedSink(true, 40);
      const display = new LiveDisplay(sink);
      display.show({ title: "t1", rows: [{ key: "1", line: "#1 TESTING" }] });
      display.show({ title: "t2", rows: [{ key: "1", line: `#1 MERGED ${"x".repeat(60)}` }] });
      const [first, second] = sink.text.split("\u001b[2F");
      expect(first).to.equal("\u001b[Jt1\n#1 TESTING\n");
      // Moved up over the two lines drawn, cleared, and cut to the terminal's width.
      expect(second).to.equal(`\u001b[Jt2\n#1 MERGED ${"x".repeat(28)}…\n`);
    });

    it("prints a row only when it changed when the output is not a terminal", () => {
      const sink = new CapturedSink(false);
      const display = new LiveDisplay(sink);
      display.show({
        title: "ignored",
        rows: [
          { key: "1", line: "#1 TESTING" },
          { key: "2", line: "#2 PENDING" },
        ],
      });
      display.show({
        title: "ignored",
        rows: [
          { key: "1", line: "#1 TESTING" },
          { key: "2", line: "#2 TESTING" },
        ],
      });
      expect(
        sink.text
          .split("\n")
          .filter(Boolean)
          .map((line) => line.replace(/^\[\s*\d+s\] /, "")),
      ).to.deep.equal(["#1 TESTING", "#2 PENDING", "#2 TESTING"]);
      expect(sink.text).not.to.include("ignored");
    });
  });
});
