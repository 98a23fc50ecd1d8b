import { buildExposition } from "../domain/exposition-model.js";
import { WINDOW_MS } from "../domain/observation.js";
import type { MetricsScope } from "../domain/queue-identity.js";
import { FamilyTexts, renderPrometheusText } from "../exposition/prometheus-text.js";
import type { MetricsState } from "./metrics-state.js";

/** Organisations and repositories whose last answer is kept; the oldest goes first. */
const MAX_KEPT_SCOPES = 256;

interface KeptAnswer {
  /** Everything the answer was computed from, except the time. */
  inputs: string;
  text: string;
  /** The time it was computed at: an earlier time may see observations that have left the window since. */
  from: number;
  /** When its oldest observation leaves the window, changing the answer. */
  until: number;
  /** Each family's last text: a new observation changes one or two families, the others are not written again. */
  families: FamilyTexts;
}

/**
 * The exposition text of a scrape. It is a function of what the store holds and of which observations are in the
 * window; the store is read on every scrape (the gauges' records, the observations' generation), and the text is
 * computed again only when one of them changed or an observation left the window. So every replica still answers
 * from the shared store, alike, and a scrape with nothing new costs the reads instead of the whole exposition;
 * after a change, only the families whose series changed are written again.
 */
export class ScrapeAnswers {
  private readonly kept = new Map<string, KeptAnswer>();

  constructor(private readonly state: MetricsState) {}

  async text(scope: MetricsScope, now: number): Promise<string> {
    const view = await this.state.view(now);
    const { observationsGeneration, queues, timelines, runs, testStatuses } = view;
    const inputs = JSON.stringify([observationsGeneration, queues, timelines, runs, testStatuses]);
    const scopeKey = JSON.stringify([scope.org, scope.repo ?? null]);
    const kept = this.kept.get(scopeKey);
    if (kept && kept.inputs === inputs && now >= kept.from && now < kept.until) return kept.text;

    const families = kept?.families ?? new FamilyTexts();
    const text = await renderPrometheusText(buildExposition(view, scope, now), families);
    // The observations come in time order: the first is the first to leave the window.
    const oldest = view.observations[0];
    this.kept.delete(scopeKey);
    this.kept.set(scopeKey, {
      inputs,
      text,
      from: now,
      until: oldest ? oldest.at + WINDOW_MS : Infinity,
      families,
    });
    if (this.kept.size > MAX_KEPT_SCOPES) this.kept.delete(this.kept.keys().next().value as string);
    return text;
  }
}
