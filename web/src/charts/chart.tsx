import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import {
  BUCKET_MS,
  bucketLabel,
  formatValue,
  seriesColour,
  stack,
  tableRows,
  xRange,
  type Bucket,
  type ChartKind,
  type ChartSeries,
} from "./chart-data.js";

export type { Bucket, ChartKind, ChartSeries };

export interface ChartProps {
  /** The DOM id of the figure (links, tests). */
  id: string;
  title: string;
  kind: ChartKind;
  bucket: Bucket;
  /** Each bucket's start, milliseconds since the epoch, ascending. */
  times: readonly number[];
  series: readonly ChartSeries[];
  /** The y axis' unit, printed after each hovered value ("PRs", "min"). */
  unit?: string;
  height?: number;
  /** What the chart shows in a sentence, for screen readers and the figure's caption. */
  description?: string;
}

const cssVar = (el: Element, name: string, fallback: string) =>
  getComputedStyle(el).getPropertyValue(name).trim() || fallback;

function plotOptions(props: ChartProps, el: HTMLElement, width: number): uPlot.Options {
  const { kind, bucket, series, unit = "" } = props;
  const fg = cssVar(el, "--muted", "#57606a");
  const grid = cssVar(el, "--line", "#d0d7de");
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const bars = kind === "stacked-bars";
  // Stacked bars are drawn tallest first (each series' running total), so the legend lists them top down.
  const order = bars ? series.map((_, i) => series.length - 1 - i) : series.map((_, i) => i);
  const barPaths = uPlot.paths.bars!({ size: [0.8, 64], align: 0 });
  return {
    width,
    height: props.height ?? 220,
    // Buckets are cut in UTC by the API; the axis says the same hours.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    scales: {
      x: { time: true, range: () => xRange(props.times, bucket) },
      // From 0 (counts and durations), with a little room above the highest bar.
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] },
    },
    cursor: { points: { show: !bars }, drag: { x: false, y: false } },
    legend: { live: true },
    axes: [axis, { ...axis, size: 56, values: (_u, splits) => splits.map((v) => formatValue(v)) }],
    series: [
      { label: "Bucket", value: (_u, v) => (v === null ? "—" : bucketLabel(v * 1000, bucket)) },
      ...order.map((k): uPlot.Series => {
        const colour = seriesColour(k);
        return {
          label: series[k]!.label,
          stroke: colour,
          width: bars ? 0 : 2,
          spanGaps: false,
          ...(bars ? { fill: colour, paths: barPaths, points: { show: false } } : {}),
          // The hover shows each series' own value, never a running total; props.series is read at hover, as
          // the figures may have been replaced since (setData).
          value: (_u, _v, _s, idx) => (idx === null ? "—" : formatValue(props.series[k]!.values[idx], unit)),
        };
      }),
    ],
  };
}

function plotData(props: ChartProps): uPlot.AlignedData {
  const xs = props.times.map((t) => t / 1000);
  const columns =
    props.kind === "stacked-bars" ? stack(props.series) : props.series.map((s) => [...s.values]);
  const order = props.kind === "stacked-bars" ? [...columns].reverse() : columns;
  return [xs, ...order] as uPlot.AlignedData;
}

/** The table view: rendered only once opened, so a 90-day hourly page does not build thousands of hidden rows. */
function ChartTable({ props }: { props: ChartProps }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="chart-table" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Table: {props.title}</summary>
      {open && (
        <table>
          <caption class="visually-hidden">{props.title}</caption>
          <thead>
            <tr>
              <th scope="col">{props.bucket === "day" ? "Day (UTC)" : "Hour"}</th>
              {props.series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                  {props.unit ? ` (${props.unit})` : ""}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {tableRows(props.times, props.series, props.bucket).map(([when, ...cells]) => (
              <tr key={when}>
                <th scope="row">{when}</th>
                {cells.map((c, i) => (
                  <td key={i}>{c}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}

/**
 * A time-series chart (lines) or stacked bars over the API's buckets, drawn by uPlot on a canvas: the legend under
 * it shows every series' value at the hovered bucket, and a table view beside it carries the same numbers for
 * screen readers and for copying.
 */
export function Chart(props: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  // The plot's formatters and range read the latest props: new figures of the same shape (a live update, a read
  // again) only replace the plot's data, instead of building a new uPlot and its canvas.
  const latestProps = useRef(props);
  latestProps.current = props;
  /** The figures the plot shows now. */
  const drawn = useRef<{ times: readonly number[]; series: readonly ChartSeries[] } | null>(null);
  const shape = `${props.kind} ${props.bucket} ${props.unit ?? ""} ${props.series.map((s) => s.label).join("\u0000")}`;
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const current = (): ChartProps => latestProps.current;
    const options = plotOptions(
      {
        ...props,
        get times() {
          return current().times;
        },
        get series() {
          return current().series;
        },
      },
      el,
      el.clientWidth || 600,
    );
    const plot = new uPlot(options, plotData(props), el);
    plotRef.current = plot;
    drawn.current = { times: props.times, series: props.series };
    const resize = new ResizeObserver(() => {
      if (el.clientWidth > 0 && el.clientWidth !== plot.width)
        plot.setSize({ width: el.clientWidth, height: plot.height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [shape]);
  useEffect(() => {
    const plot = plotRef.current;
    const before = drawn.current;
    // The first draw is the plot's own (above); later figures replace its data in place.
    if (!plot || (before?.times === props.times && before.series === props.series)) return;
    drawn.current = { times: props.times, series: props.series };
    plot.setData(plotData(props));
  }, [props.times, props.series]);
  const latest = props.times.length - 1;
  const summary =
    props.description ??
    `${props.title}: ${props.times.length} ${props.bucket === "day" ? "days" : "hours"}` +
      (latest >= 0
        ? `; last ${props.series.map((s) => `${s.label} ${formatValue(s.values[latest], props.unit)}`).join(", ")}`
        : "");
  return (
    <figure class="chart" id={props.id} data-kind={props.kind} data-bucket-ms={BUCKET_MS[props.bucket]}>
      <figcaption>
        <h3>{props.title}</h3>
      </figcaption>
      <div class="chart-plot" ref={host} role="img" aria-label={summary} />
      <ChartTable props={props} />
    </figure>
  );
}
