import { expect } from "chai";
import { PullRequestState } from "@mainline/proto/queue";
import { checkRunView } from "../src/domain/github/pull-request-check.js";
import { notesSinceLatestRun } from "../src/github/queue-facts.js";

describe("GitHub check runs: what the queue said of the latest run", () => {
  it("lists the tests a merged PR's run ignored as quarantined under the summary", () => {
    const view = checkRunView({
      state: PullRequestState.MERGED,
      targetBranch: "main",
      pageUrl: "https://mainline.test/pr",
      notes: ["passed; failures ignored: quarantined tests cart › checkout"],
    });
    expect(view).to.include({ conclusion: "success", title: "Merged" });
    expect(view.summary).to.match(/\n\n- passed; failures ignored: quarantined tests cart › checkout$/);
  });

  it("takes the notes since the PR's latest run started, not its older runs", () => {
    const T = PullRequestState;
    const notes = notesSinceLatestRun([
      { to: T.TESTING },
      { to: T.PENDING, detail: "known flaky tests failed: cart › a; retrying once in place" },
      { to: T.TESTING },
      { to: T.TESTS_PASSED, detail: "retry after known flaky tests cart › a failed: passed" },
      { to: T.MERGED },
    ]);
    expect(notes).to.deep.equal(["retry after known flaky tests cart › a failed: passed"]);
    expect(
      notesSinceLatestRun([{ to: T.TESTING }, { to: T.PENDING, detail: "target broken: test x" }]),
    ).to.deep.equal(["target broken: test x"]);
  });

  it("says nothing more when the queue said nothing more", () => {
    const plain = checkRunView({ state: PullRequestState.MERGED, targetBranch: "main", pageUrl: "p" });
    expect(
      checkRunView({ state: PullRequestState.MERGED, targetBranch: "main", pageUrl: "p", notes: [] }),
    ).to.deep.equal(plain);
  });
});
