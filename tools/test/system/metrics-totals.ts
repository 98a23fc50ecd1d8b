import { callUnary, createGrpcClient } from "@mainline/kit/grpc/index";
import { MetricsClient } from "@mainline/proto/metrics";

/**
 * The counters one metrics replica gives for an organisation, straight from its gRPC port (the gateway would
 * pick either replica, so it cannot tell them apart): each sample line of a family typed `counter`, and the
 * `_count` and `_sum` of histograms, keyed by name and labels.
 */
export async function counterTotals(address: string, org: string): Promise<Record<string, number>> {
  const client = createGrpcClient(MetricsClient, address);
  try {
    const { text } = await callUnary(
      client.getMergeQueueMetrics.bind(client),
      { org },
      { deadlineMs: 10_000 },
    );
    return countersOf(text);
  } finally {
    client.close();
  }
}

export function countersOf(text: string): Record<string, number> {
  const types = new Map<string, string>();
  const totals: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const typed = /^# TYPE (\S+) (\S+)/.exec(line);
    if (typed) types.set(typed[1]!, typed[2]!);
    if (line === "" || line.startsWith("#")) continue;
    const sample = /^([^\s{]+)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!sample) continue;
    const [, name = "", labels = "", value = ""] = sample;
    const family = name.replace(/_(count|sum|bucket)$/, "");
    const type = types.get(name) ?? types.get(family);
    const counted = type === "counter" || (type === "histogram" && /_(count|sum)$/.test(name));
    if (counted) totals[`${name}${labels}`] = Number(value);
  }
  return totals;
}
