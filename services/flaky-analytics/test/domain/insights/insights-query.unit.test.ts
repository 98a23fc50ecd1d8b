import { expect } from "chai";
import {
  bucketOf,
  decodeCostliestCursor,
  encodeCostliestCursor,
  insightsWindow,
  limitOf,
  periodOf,
} from "../../../src/domain/index.js";
import { DAY_MS, HOUR_MS } from "../../../src/domain/durations.js";

const NOW = Date.UTC(2025, 2, 10, 12, 30);
const TODAY = Date.UTC(2025, 2, 10);

describe("an insights query", () => {
  it("covers whole UTC buckets ending with the current one, and costs whole days covering the period", () => {
    expect(insightsWindow("24h", "hour", NOW)).to.deep.include({
      start: TODAY - 11 * HOUR_MS,
      end: TODAY + 13 * HOUR_MS,
      count: 24,
      costFrom: TODAY - DAY_MS,
      costTo: TODAY + DAY_MS,
    });
    expect(insightsWindow("90d", "hour", NOW).count).to.equal(2160);
    expect(insightsWindow("90d", "day", NOW)).to.deep.include({ start: TODAY - 89 * DAY_MS, count: 90 });
    expect(insightsWindow("24h", "day", NOW)).to.deep.include({ start: TODAY, count: 1 });
  });

  it("refuses another period, bucket or limit, naming the field and the rule", () => {
    expect(periodOf("30d")).to.equal("30d");
    expect(() => periodOf("1y")).to.throw(/period.*must be one of 24h, 7d, 30d, 90d/);
    expect(() => bucketOf("minute")).to.throw(/bucket.*must be one of hour, day/);
    expect(limitOf(0)).to.equal(20);
    expect(() => limitOf(101)).to.throw(/limit.*from 1 to 100/);
  });

  it("pages with a cursor bound to its period, and refuses one that is not a cursor", () => {
    const cursor = encodeCostliestCursor("90d", 100);
    expect(decodeCostliestCursor(cursor, "90d")).to.equal(100);
    expect(decodeCostliestCursor("", "7d")).to.equal(0);
    expect(() => decodeCostliestCursor(cursor, "7d")).to.throw(/cursor.*belongs to the period 90d, not 7d/);
    expect(() => decodeCostliestCursor("not a cursor!", "7d")).to.throw(/cursor.*is not a cursor/);
    expect(() => decodeCostliestCursor(Buffer.from("c1:7d:-5").toString("base64url"), "7d")).to.throw(
      /cursor/,
    );
    expect(() => decodeCostliestCursor("x".repeat(300), "7d")).to.throw(/cursor/);
  });
});
