import { Gauge, Histogram, Registry } from "prom-client";
import { labelNamesOf } from "../domain/catalogue.js";
import type { MetricFamily } from "../domain/exposition-model.js";

/** The content type of GET /getMergeQueueMetrics (service-spec): Prometheus text exposition format 0.0.4. */
export const PROMETHEUS_TEXT_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * Writes the families in the Prometheus text format with prom-client, which owns the escaping, the HELP and
 * TYPE lines and the cumulative buckets. Each family is written alone and the texts joined as prom-client's
 * registry joins them (a blank line between families, a newline at the end), so that `kept` can hand back a
 * family whose series did not change since it was last written instead of writing it again.
 */
export async function renderPrometheusText(
  families: readonly MetricFamily[],
  kept: FamilyTexts = new FamilyTexts(),
): Promise<string> {
  const texts: string[] = [];
  for (const family of families) texts.push(await kept.textOf(family));
  return `${texts.join("\n\n")}\n`;
}

/** The last text of each family, with what it was written from. */
export class FamilyTexts {
  private readonly byName = new Map<string, { series: string; text: string }>();

  async textOf(family: MetricFamily): Promise<string> {
    const series = JSON.stringify(family.series);
    const kept = this.byName.get(family.definition.name);
    if (kept?.series === series) return kept.text;
    const text = await familyText(family);
    this.byName.set(family.definition.name, { series, text });
    return text;
  }
}

/** One family as a registry holding only it writes it, without the registry's final newline. */
async function familyText(family: MetricFamily): Promise<string> {
  const registry = new Registry();
  const { name, help } = family.definition;
  // Named up front: a family without series is then only its HELP and TYPE, not an unlabelled 0.
  const labelNames = [...labelNamesOf(family.definition)];
  if (family.type === "gauge") {
    const gauge = new Gauge({ name, help, labelNames, registers: [registry] });
    for (const s of family.series) gauge.set(s.labels, s.value);
  } else {
    const buckets = [...(family.definition.buckets ?? [])];
    const histogram = new Histogram({ name, help, labelNames, buckets, registers: [registry] });
    for (const s of family.series) {
      histogram.zero(s.labels);
      for (const value of s.values) histogram.observe(s.labels, value);
    }
  }
  return (await registry.metrics()).slice(0, -1);
}
