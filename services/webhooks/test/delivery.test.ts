import { expect } from "chai";
import { callUnary } from "@mainline/kit/grpc/index";
import {
  BatchEventType,
  PullRequestEventType,
  PullRequestState,
  TestRunEventType,
  TestRunKind,
} from "@mainline/proto/queue";
import { eventually, WebhookReceiver } from "./support/webhook-receiver.js";
import { newSecret, WebhooksFixture } from "./support/webhooks-fixture.js";

describe("webhooks: signed, ordered, at-least-once delivery", function () {
  let f: WebhooksFixture;
  const receivers: WebhookReceiver[] = [];

  before(async () => {
    f = await WebhooksFixture.start();
  });
  after(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await f.stop();
  });

  async function receiver(respond?: ConstructorParameters<typeof Object>[0]) {
    const r = await WebhookReceiver.start(newSecret(), respond as never);
    receivers.push(r);
    return r;
  }

  async function subscribe(r: WebhookReceiver, org: string, eventTypes: string[] = []) {
    const { subscription } = await callUnary(f.api.createSubscription.bind(f.api), {
      org,
      url: r.url,
      eventTypes,
      secret: r.secret,
    });
    return subscription!;
  }

  const prNumbers = (r: WebhookReceiver) => r.accepted.map((a) => a.payload.pr_number);

  it("delivers queue events published to the real stream, signed, with the compat-notes payload", async () => {
    const r = await receiver();
    await subscribe(r, "org-payload");
    await f.publishPullRequestEvent({
      org: "org-payload",
      type: PullRequestEventType.FAILED,
      prNumber: 42,
      status: PullRequestState.FAILED,
      batched: true,
      testBranch: "mainline/test/1",
      testBranchSha: "abc123",
      failureReason: "tests failed",
    });
    await f.publishBatchEvent({
      org: "org-payload",
      type: BatchEventType.MERGED,
      prNumbers: [5, 6],
    });
    await eventually("two deliveries", () => r.accepted.length === 2);
    expect(r.rejected).to.deep.equal([]);
    const [pr, batch] = r.accepted.map((a) => a.payload);
    expect(pr).to.include({
      type: "pull_request.failed",
      target_branch: "main",
      pr_number: 42,
      status: "FAILED",
      batched: true,
      is_bisection: false,
      test_branch: "mainline/test/1",
      test_branch_sha: "abc123",
      failure_reason: "tests failed",
    });
    expect(pr?.repository).to.deep.equal({ host: "github.com", owner: "acme", name: "widgets" });
    expect(pr?.timestamp).to.be.a("string");
    expect(batch).to.deep.include({ type: "pull_request_batch.merged", pr_numbers: [5, 6] });
    expect(r.accepted[0]?.headers["webhook-signature"]).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it("sends test_run.cancelled when the queue abandons a run, naming its test branch, and nothing for other run events", async () => {
    const r = await receiver();
    await subscribe(r, "org-runs", ["test_run.cancelled"]);
    const queue = {
      org: "org-runs",
      repo: { host: "github.com", owner: "acme", name: "widgets" },
      targetBranch: "main",
    };
    await f.publishTestRunEvent({ queue, type: TestRunEventType.STARTED, testRunId: "run-1_abc" });
    await f.publishTestRunEvent({
      queue,
      type: TestRunEventType.CANCELLED,
      testRunId: "run-1_abc",
      kind: TestRunKind.BISECTION,
      prNumbers: [3, 4],
      testedPrNumbers: [4],
      testBranch: "mainline/test/main/run-1_abc",
      reason: "RESTART_REQUESTED",
    });
    await eventually("the cancelled event", () => r.accepted.length === 1);
    expect(r.accepted[0]?.payload).to.deep.include({
      type: "test_run.cancelled",
      target_branch: "main",
      test_run_id: "run-1_abc",
      kind: "bisection",
      test_branch: "mainline/test/main/run-1_abc",
      pr_numbers: [3, 4],
      tested_pr_numbers: [4],
      reason: "RESTART_REQUESTED",
    });
    expect(r.accepted[0]?.payload.repository).to.deep.equal(queue.repo);
  });

  it("sends only the event types a subscription asked for, and only to its own organisation", async () => {
    const merged = await receiver();
    const other = await receiver();
    await subscribe(merged, "org-filter", ["pull_request.merged"]);
    await subscribe(other, "org-elsewhere");
    await f.publishPullRequestEvent({ org: "org-filter", type: PullRequestEventType.QUEUED, prNumber: 1 });
    // STATE_CHANGED transitions are for the metrics only.
    await f.publishPullRequestEvent({
      org: "org-filter",
      type: PullRequestEventType.STATE_CHANGED,
      prNumber: 1,
    });
    await f.publishPullRequestEvent({ org: "org-filter", type: PullRequestEventType.MERGED, prNumber: 1 });
    await eventually("the merged event", () => merged.accepted.length === 1);
    expect(merged.accepted[0]?.payload.type).to.equal("pull_request.merged");
    // A marker event for the other organisation proves the earlier ones were not merely slow.
    await f.publishPullRequestEvent({ org: "org-elsewhere", type: PullRequestEventType.MERGED, prNumber: 9 });
    await eventually("the marker", () => other.accepted.length === 1);
    expect(prNumbers(other)).to.deep.equal([9]);
    expect(merged.accepted).to.have.length(1);
  });

  it("retries a failing receiver and delivers on the third attempt, logging each attempt", async () => {
    const r = await receiver();
    r.respond = (_a, i) => (i < 2 ? 503 : 200);
    const sub = await subscribe(r, "org-retry");
    await f.publishPullRequestEvent({ org: "org-retry", prNumber: 7 });
    await eventually("acceptance on the third attempt", () => r.accepted.length === 1);
    expect(r.arrivals.map((a) => a.answered)).to.deep.equal([503, 503, 200]);
    expect(new Set(r.arrivals.map((a) => a.webhookId)).size).to.equal(1);
    // Each attempt is signed anew (fresh timestamp) and still verifies.
    expect(r.rejected).to.deep.equal([]);
    await eventually("three log entries", async () => {
      const { deliveries } = await callUnary(f.api.listDeliveries.bind(f.api), {
        org: "org-retry",
        subscriptionId: sub.id,
        limit: 0,
      });
      return deliveries.length === 3;
    });
    const { deliveries } = await callUnary(f.api.listDeliveries.bind(f.api), {
      org: "org-retry",
      subscriptionId: sub.id,
      limit: 10,
    });
    expect(deliveries.map((d) => [d.attempt, d.statusCode, d.succeeded])).to.deep.equal([
      [3, 200, true],
      [2, 503, false],
      [1, 503, false],
    ]);
    expect(deliveries[1]?.error).to.equal("receiver answered HTTP 503");
    expect(deliveries.every((d) => d.eventId === r.arrivals[0]?.webhookId)).to.equal(true);
    expect(deliveries.every((d) => d.eventType === "pull_request.queued")).to.equal(true);
  });

  it("keeps order per subscription: a later event waits until the earlier one is delivered", async () => {
    const r = await receiver();
    // The first event fails twice; events 2..5 are already queued behind it.
    r.respond = (a) => (a.payload.pr_number === 1 && r.arrivals.length < 2 ? 500 : 200);
    await subscribe(r, "org-order");
    for (let n = 1; n <= 5; n++) await f.publishPullRequestEvent({ org: "org-order", prNumber: n });
    await eventually("five events", () => r.accepted.length === 5);
    expect(prNumbers(r)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(r.arrivals.map((a) => a.payload.pr_number)).to.deep.equal([1, 1, 1, 2, 3, 4, 5]);
  });

  it("disables a subscription whose receiver keeps failing, shows why, and resumes on re-enable", async () => {
    const r = await receiver();
    r.respond = () => 500;
    const sub = await subscribe(r, "org-disable");
    await f.publishPullRequestEvent({ org: "org-disable", prNumber: 1 });
    await f.publishPullRequestEvent({ org: "org-disable", prNumber: 2 });
    const listed = async () =>
      (await callUnary(f.api.listSubscriptions.bind(f.api), { org: "org-disable" })).subscriptions[0];
    await eventually("the subscription to be disabled", async () => (await listed())?.disabled === true);
    const disabled = await listed();
    expect(disabled?.disabledReason).to.match(/failed 4 attempts; last error: receiver answered HTTP 500/);
    expect(disabled?.disabledAt).to.be.instanceOf(Date);
    // Every attempt of the schedule went to the first event; the second waited behind it.
    expect(r.arrivals.map((a) => a.payload.pr_number)).to.deep.equal([1, 1, 1, 1]);
    const refused = await callUnary(f.api.sendTestEvent.bind(f.api), {
      org: "org-disable",
      subscriptionId: sub.id,
    }).catch((e: Error) => e);
    expect(refused)
      .to.be.instanceOf(Error)
      .with.property("message")
      .match(/is disabled/);

    r.respond = () => 200;
    const { subscription } = await callUnary(f.api.enableSubscription.bind(f.api), {
      org: "org-disable",
      subscriptionId: sub.id,
    });
    expect(subscription?.disabled).to.equal(false);
    expect(subscription?.secret).to.equal("");
    await eventually("the held events", () => r.accepted.length === 2);
    expect(prNumbers(r)).to.deep.equal([1, 2]);
  });

  it("sends a test event on request", async () => {
    const r = await receiver();
    const sub = await subscribe(r, "org-test-event", ["pull_request.merged"]);
    const { eventId } = await callUnary(f.api.sendTestEvent.bind(f.api), {
      org: "org-test-event",
      subscriptionId: sub.id,
    });
    await eventually("the test event", () => r.accepted.length === 1);
    expect(r.accepted[0]?.webhookId).to.equal(eventId);
    expect(r.accepted[0]?.payload).to.include({ type: "webhook.test", subscription_id: sub.id });
  });
});
