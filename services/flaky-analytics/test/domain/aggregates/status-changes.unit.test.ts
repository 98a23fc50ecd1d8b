import { expect } from "chai";
import {
  changeAt,
  changeValue,
  packChange,
  StatusTally,
  withStatusChange,
  type StatusChanges,
} from "../../../src/domain/aggregates/index.js";
import { DAY_MS, HOUR_MS } from "../../../src/domain/durations.js";

const T0 = Date.UTC(2025, 2, 1);

function changes(...steps: [number, "healthy" | "flaky" | "broken"][]): StatusChanges {
  return steps.reduce<StatusChanges>((list, [at, value]) => withStatusChange(list, at, value, at), []);
}

describe("a test's status changes", () => {
  it("keeps them in time order, also when a change is dated before the last one", () => {
    const list = withStatusChange(
      changes([T0, "healthy"], [T0 + 5 * HOUR_MS, "flaky"]),
      T0 + HOUR_MS,
      "broken",
      T0,
    );
    expect(list.map((c) => [changeAt(c) - T0, changeValue(c)])).to.deep.equal([
      [0, "healthy"],
      [HOUR_MS, "broken"],
      [5 * HOUR_MS, "flaky"],
    ]);
  });

  it("forgets changes no window reaches, but keeps the state the oldest window opens in", () => {
    const list = changes([T0, "healthy"], [T0 + DAY_MS, "flaky"], [T0 + 2 * DAY_MS, "healthy"]);
    const later = withStatusChange(list, T0 + 100 * DAY_MS, "broken", T0 + 100 * DAY_MS);
    expect(later.map(changeValue)).to.deep.equal(["healthy", "broken"]);
    expect(changeAt(later[0] as number)).to.equal(T0 + 2 * DAY_MS);
  });

  it("counts per bucket the tests flaky or broken at some time in it, each test once", () => {
    const tally = new StatusTally(T0, DAY_MS, 5);
    // Flaky from the middle of day 1 to the start of day 3 (healthy again at 00:00 of day 3).
    tally.add(changes([T0, "healthy"], [T0 + 1.5 * DAY_MS, "flaky"], [T0 + 3 * DAY_MS, "healthy"]));
    // Flaky, healthy and flaky again within day 2: one test.
    tally.add(
      changes(
        [T0 + 2 * DAY_MS, "flaky"],
        [T0 + 2 * DAY_MS + HOUR_MS, "healthy"],
        [T0 + 2.5 * DAY_MS, "flaky"],
      ),
    );
    // Broken since before the window, still broken.
    tally.add([packChange(T0 - 10 * DAY_MS, "broken")]);
    // Broken and healthy again before the window: nothing.
    tally.add(changes([T0 - 5 * DAY_MS, "broken"], [T0 - 4 * DAY_MS, "healthy"]));
    expect(tally.result()).to.deep.equal({ flaky: [0, 1, 2, 1, 1], broken: [1, 1, 1, 1, 1] });
  });
});
