import { spawnSync } from "node:child_process";
import parsePrometheusTextFormat from "parse-prometheus-text-format";

// The catalogue of compat-notes names two gauges *_total; promtool's linter flags that, and only that is accepted.
const CATALOGUE_LINT =
  /^mq_pr_(conclusions|restarts)_1h_total non-counter metrics should not have "_total" suffix$/;

function promtoolVersion(): string | undefined {
  const result = spawnSync("promtool", ["--version"], { encoding: "utf8" });
  if (result.error || result.status !== 0) return undefined;
  return /version (\S+)/.exec(`${result.stdout}${result.stderr}`)?.[1] ?? "unknown version";
}

const promtool = promtoolVersion();

/** Which parser validates the exposition text in this run: tests name it in their titles. */
export const EXPOSITION_PARSER = promtool
  ? `promtool check metrics ${promtool}`
  : "parse-prometheus-text-format (promtool is not on PATH: apt-get install prometheus)";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  families: { name: string; help: string; type: string }[];
  samples: Sample[];
}

/**
 * Validates the text with promtool when it is installed (a parse error fails; lint findings other than the
 * catalogue's own names fail), and always reads it with the JS parser to get at the values.
 */
export function checkExposition(text: string): Exposition {
  if (promtool) {
    const result = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    const findings = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line.trim() !== "");
    // Exit 3 is "lint problems found"; 1 is a parse error.
    if (result.status !== 0 && result.status !== 3) {
      throw new Error(`promtool check metrics failed (exit ${result.status}):\n${findings.join("\n")}`);
    }
    const unexpected = findings.filter((line) => !CATALOGUE_LINT.test(line.trim()));
    if (unexpected.length > 0) throw new Error(`promtool check metrics found:\n${unexpected.join("\n")}`);
  }
  const families = parsePrometheusTextFormat(text).map(({ name, help, type }) => ({ name, help, type }));
  // The parser folds a labelled histogram's samples into one label-less entry (its issue #13), so the samples
  // are read once more without TYPE lines: every sample line is then its own untyped entry with its labels.
  const untyped = text
    .split("\n")
    .filter((line) => !line.startsWith("# TYPE "))
    .join("\n");
  const samples = parsePrometheusTextFormat(untyped).flatMap((family) =>
    family.metrics.map((m) => ({ name: family.name, labels: m.labels ?? {}, value: Number(m.value) })),
  );
  return { families, samples };
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): Sample[] {
  return exposition.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** The value of the one sample that matches; fails when none or several do. */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string>): number {
  const found = samplesOf(exposition, name, labels);
  if (found.length !== 1) {
    throw new Error(`expected one ${name}${JSON.stringify(labels)} sample, found ${found.length}`);
  }
  return (found[0] as Sample).value;
}

export interface HistogramReading {
  /** Cumulative count per upper bound, "+Inf" included. */
  buckets: Record<string, number>;
  count: number;
  sum: number;
}

export function histogramOf(
  exposition: Exposition,
  name: string,
  labels: Record<string, string>,
): HistogramReading {
  const buckets: Record<string, number> = {};
  for (const s of samplesOf(exposition, `${name}_bucket`, labels)) buckets[s.labels.le ?? "?"] = s.value;
  return {
    buckets,
    count: valueOf(exposition, `${name}_count`, labels),
    sum: valueOf(exposition, `${name}_sum`, labels),
  };
}
