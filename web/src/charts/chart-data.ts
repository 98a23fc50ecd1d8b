/**
 * The chart component's arithmetic, apart from the DOM so the fast tier can check it: stacking, the table view's
 * rows and the labels of a bucket. A value is null where the bucket had nothing to measure (no PR merged: no time
 * to merge), which is not the same as 0 (a bucket where nothing failed).
 */

export type ChartKind = "lines" | "stacked-bars";
export type Bucket = "hour" | "day";

export interface ChartSeries {
  /** The legend's and the table's column name, e.g. "p50 from ready". */
  label: string;
  /** One value per bucket, aligned with the chart's times. */
  values: readonly (number | null)[];
}

export const BUCKET_MS: Record<Bucket, number> = { hour: 3_600_000, day: 86_400_000 };

/**
 * Colour-blind safe (Okabe-Ito), each readable on the light and the dark page background; a series is also named
 * in the legend and the table, so colour never carries the meaning alone.
 */
export const PALETTE = [
  "#0072b2",
  "#e69f00",
  "#009e73",
  "#cc79a7",
  "#d55e00",
  "#56b4e9",
  "#999999",
  "#f0e442",
];

export const seriesColour = (index: number): string => PALETTE[index % PALETTE.length]!;

/**
 * Running totals for a stacked bar chart, top series last: bar k is drawn from 0 to the sum of series 0..k, so
 * drawing the totals from the largest down leaves each series' own share visible. A null counts as 0 in the
 * sum, and a bucket where every series is null stays null (no bar at all).
 */
export function stack(series: readonly ChartSeries[]): (number | null)[][] {
  const length = series[0]?.values.length ?? 0;
  const totals: (number | null)[][] = [];
  let running: (number | null)[] = Array.from({ length }, () => null);
  for (const s of series) {
    running = running.map((sum, i) => {
      const v = s.values[i] ?? null;
      return v === null ? sum : (sum ?? 0) + v;
    });
    totals.push(running);
  }
  return totals;
}

/** A bucket's start as the table and the hover show it: always UTC, the time the API's buckets are cut in. */
export function bucketLabel(ms: number, bucket: Bucket): string {
  const iso = new Date(ms).toISOString();
  return bucket === "day" ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A number as the legend and the table print it: whole numbers plain, others with up to two decimals. */
export function formatValue(value: number | null | undefined, unit = ""): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  const text = Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1);
  return unit ? `${text} ${unit}` : text;
}

/** The table view: one row per bucket, one cell per series, in the series' order (what screen readers read). */
export function tableRows(
  times: readonly number[],
  series: readonly ChartSeries[],
  bucket: Bucket,
  format: (value: number | null) => string = (v) => formatValue(v),
): string[][] {
  return times.map((t, i) => [bucketLabel(t, bucket), ...series.map((s) => format(s.values[i] ?? null))]);
}

/**
 * The x range: half a bucket either side of the first and last bucket, so the edge bars are whole and a bucket's
 * centre sits at a position anyone can compute (the browser test hovers there).
 */
export function xRange(times: readonly number[], bucket: Bucket): [number, number] {
  const half = BUCKET_MS[bucket] / 2;
  if (times.length === 0) return [0, 1];
  return [(times[0]! - half) / 1000, (times[times.length - 1]! + half) / 1000];
}
