import { expect } from "chai";
import { PullRequestState } from "@mainline/proto/queue";
import { hasMarker, withMarker } from "../src/domain/github/comment-marker.js";
import { failureComment } from "../src/domain/github/failure-comment.js";
import { checkRunView, type PullRequestStanding } from "../src/domain/github/pull-request-check.js";

const page = "https://mainline.example.com/pull-request?repo=github.com%2Facme%2Fapp&branch=main&pr=7";
const standing = (fields: Partial<PullRequestStanding>): PullRequestStanding => ({
  state: PullRequestState.PENDING,
  targetBranch: "main",
  pageUrl: page,
  ...fields,
});

describe("GitHub talk-back: what the check run and the comments say", () => {
  it("shows a queued PR's place, and links Mainline's page of it", () => {
    const view = checkRunView(standing({ position: 3, queueLength: 5 }));
    expect(view).to.include({ status: "queued", title: "Position 3 of 5 in the queue" });
    expect(view.conclusion).to.equal(undefined);
    expect(view.summary).to.contain("merge queue of `main`").and.contain(page);
  });

  it("follows the PR through testing to merged, failed or removed", () => {
    expect(checkRunView(standing({ state: PullRequestState.TESTING }))).to.include({
      status: "in_progress",
      title: "Testing",
    });
    expect(checkRunView(standing({ state: PullRequestState.PENDING_FAILURE })).summary).to.contain(
      "finding out",
    );
    expect(checkRunView(standing({ state: PullRequestState.MERGED }))).to.include({
      status: "completed",
      conclusion: "success",
      title: "Merged",
    });
    const failed = checkRunView(
      standing({
        state: PullRequestState.FAILED,
        failureReason: "MERGE_CONFLICT",
        failureDetailsUrl: "https://ci.example.com/runs/9",
      }),
    );
    expect(failed).to.include({ status: "completed", conclusion: "failure", title: "Merge conflict" });
    expect(failed.summary).to.contain("MERGE_CONFLICT").and.contain("(https://ci.example.com/runs/9)");
    expect(
      checkRunView(standing({ state: PullRequestState.CANCELLED, cancellationReason: "PR_CLOSED" })),
    ).to.include({ conclusion: "cancelled", title: "Removed from the queue" });
  });

  it("says in a failure comment why the PR failed, where to look and what to do next", () => {
    const body = failureComment({
      targetBranch: "release/1.x",
      failureReason: "TIMED_OUT",
      failureDetailsUrl: "https://mainline.example.com/v1/test-runs/run-1/output",
      pageUrl: page,
    });
    expect(body)
      .to.contain("`release/1.x`")
      .and.contain("testing took longer than the queue's testing timeout");
    expect(body).to.contain(
      "Details of the failed run: https://mainline.example.com/v1/test-runs/run-1/output",
    );
    expect(body).to.contain(page).and.contain("`/svc merge`");
    expect(
      failureComment({
        targetBranch: "main",
        failureReason: "SOMETHING_NEW",
        failureDetailsUrl: undefined,
        pageUrl: page,
      }),
    )
      .to.contain("it failed (SOMETHING_NEW)")
      .and.not.contain("Details of the failed run");
  });

  it("marks each comment with its call, so a retry finds it; a key cannot close the HTML comment early", () => {
    const body = withMarker("Queued.", "reply:abc-123");
    expect(hasMarker(body, "reply:abc-123")).to.equal(true);
    expect(hasMarker(body, "reply:abc-124")).to.equal(false);
    expect(hasMarker(null, "reply:abc-123")).to.equal(false);
    const hostile = withMarker("x", "reply:--> <script>");
    expect(hostile).to.not.contain("--> <script>");
    expect(hostile.match(/-->/g)).to.have.length(1);
    expect(hasMarker(hostile, "reply:--> <script>")).to.equal(true);
  });
});
