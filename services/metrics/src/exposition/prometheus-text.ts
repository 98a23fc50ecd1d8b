import { Gauge, Histogram, Registry } from "prom-client";
import { labelNamesOf } from "../domain/catalogue.js";
import type { MetricFamily } from "../domain/exposition-model.js";

/** The content type of GET /getMergeQueueMetrics (service-spec): Prometheus text exposition format 0.0.4. */
export const PROMETHEUS_TEXT_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * Writes the families in the Prometheus text format with prom-client, which owns the escaping, the HELP and
 * TYPE lines and the cumulative buckets. A registry per answer: every scrape is computed afresh.
 */
export async function renderPrometheusText(families: readonly MetricFamily[]): Promise<string> {
  const registry = new Registry();
  for (const family of families) {
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
  }
  return registry.metrics();
}
