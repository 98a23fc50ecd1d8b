import { expect } from "chai";
import { QueueEventType, QueueMode, QueueState } from "@mainline/proto/queue";
import { filterAccepts, isWebhookEventType } from "../src/domain/event-types.js";
import { queueWebhookEvent } from "../src/domain/webhook-event.js";

const base = {
  eventId: "q1",
  timestamp: new Date(Date.UTC(2026, 0, 2)),
  queue: { org: "acme", repo: { host: "github.com", owner: "acme", name: "w" }, targetBranch: "main" },
  state: QueueState.RUNNING,
  previousState: QueueState.RUNNING,
  mode: QueueMode.SINGLE,
  previousMode: QueueMode.SINGLE,
};

describe("webhooks: queue.target_broken", () => {
  it("tells subscribers which tests fail on the target, since when, and why the queue stopped", () => {
    const event = queueWebhookEvent({
      ...base,
      type: QueueEventType.TARGET_BROKEN,
      targetBroken: {
        testId: "7d656bed-9898-5b34-8c4e-a9beecbe2eff",
        testName: "cart › totals",
        since: new Date(Date.UTC(2026, 0, 1)),
        reason: "target broken: test cart › totals failing on main since 2026-01-01T00:00:00.000Z",
      },
    });
    expect(event?.org).to.equal("acme");
    expect(event?.payload).to.deep.equal({
      type: "queue.target_broken",
      timestamp: "2026-01-02T00:00:00.000Z",
      repository: { host: "github.com", owner: "acme", name: "w" },
      target_branch: "main",
      test_id: "7d656bed-9898-5b34-8c4e-a9beecbe2eff",
      test_name: "cart › totals",
      since: "2026-01-01T00:00:00.000Z",
      reason: "target broken: test cart › totals failing on main since 2026-01-01T00:00:00.000Z",
    });
    expect(isWebhookEventType("queue.target_broken")).to.equal(true);
    expect(filterAccepts(["queue.target_broken"], event!.type)).to.equal(true);
  });

  it("sends nothing for the queue events that are for the open pages only", () => {
    expect(queueWebhookEvent({ ...base, type: QueueEventType.STATE_CHANGED })).to.equal(undefined);
    expect(queueWebhookEvent({ ...base, type: QueueEventType.TARGET_RECOVERED })).to.equal(undefined);
  });
});
