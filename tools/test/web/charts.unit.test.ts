import { expect } from "chai";

/** The page's own module; imported by a path tsc does not follow (web/ is its own project, with the DOM types). */
const CHART_DATA = "../../../web/src/charts/chart-data.js";

type Series = { label: string; values: (number | null)[] };
type Bucket = "hour" | "day";
const { stack, tableRows, bucketLabel, formatValue, xRange } = (await import(CHART_DATA)) as {
  stack: (series: Series[]) => (number | null)[][];
  tableRows: (times: number[], series: Series[], bucket: Bucket) => string[][];
  bucketLabel: (ms: number, bucket: Bucket) => string;
  formatValue: (value: number | null, unit?: string) => string;
  xRange: (times: number[], bucket: Bucket) => [number, number];
};

const day = (d: number) => Date.UTC(2026, 10, d);

describe("the web page's charts", () => {
  it("stacks bars as running totals, so each series' share is the gap between two totals", () => {
    const totals = stack([
      { label: "tests failed", values: [2, 0, null] },
      { label: "conflict", values: [1, 3, null] },
      { label: "timeout", values: [null, 1, null] },
    ]);
    expect(totals).to.deep.equal([
      [2, 0, null],
      [3, 3, null],
      [3, 4, null],
    ]);
  });

  it("gives screen readers one row per bucket with every series' own value, a missing one as a dash", () => {
    const rows = tableRows(
      [day(1), day(2)],
      [
        { label: "merged", values: [4, 0] },
        { label: "p50 minutes", values: [12.345, null] },
      ],
      "day",
    );
    expect(rows).to.deep.equal([
      ["2026-11-01", "4", "12.3"],
      ["2026-11-02", "0", "—"],
    ]);
  });

  it("labels buckets in UTC, the hours the API cuts them in", () => {
    expect(bucketLabel(Date.UTC(2026, 10, 3, 7), "hour")).to.equal("2026-11-03 07:00 UTC");
    expect(bucketLabel(Date.UTC(2026, 10, 3), "day")).to.equal("2026-11-03");
  });

  it("prints whole numbers plain, small fractions with two decimals, and the unit after", () => {
    expect(formatValue(3, "PRs")).to.equal("3 PRs");
    expect(formatValue(1.456)).to.equal("1.46");
    expect(formatValue(null, "min")).to.equal("—");
  });

  it("centres each bucket on its start, half a bucket of room either side", () => {
    expect(xRange([day(1), day(3)], "day")).to.deep.equal([
      (day(1) - 43_200_000) / 1000,
      (day(3) + 43_200_000) / 1000,
    ]);
    // An empty period still has a range (uPlot needs one).
    expect(xRange([], "hour")).to.deep.equal([0, 1]);
  });
});
