import { expect } from "chai";
import { buildExposition, type MetricsView } from "../src/domain/exposition-model.js";
import { WINDOW_MS, type Observation } from "../src/domain/observation.js";
import type { QueueIdentity } from "../src/domain/queue-identity.js";
import { renderPrometheusText } from "../src/exposition/prometheus-text.js";
import { checkExposition, EXPOSITION_PARSER, valueOf } from "./support/exposition.js";

const NOW = 10 * WINDOW_MS;
const queue = (org: string, host: string, owner: string, name: string, branch = "main"): QueueIdentity => ({
  org,
  host,
  owner,
  name,
  branch,
});
const widgets = queue("acme", "github.com", "acme", "widgets");

function merged(q: QueueIdentity, at: number, id = `${q.org}-${at}`): Observation {
  return { id, queue: q, queueType: "main", kind: "pr_conclusion", label: "merged", value: 1, at };
}

function view(parts: Partial<MetricsView>): MetricsView {
  return { queues: [], timelines: [], runs: [], observations: [], testStatuses: [], ...parts };
}

async function scrape(v: MetricsView, scope: Parameters<typeof buildExposition>[1]) {
  return checkExposition(await renderPrometheusText(buildExposition(v, scope, NOW)));
}

describe(`exposition model and text (checked by ${EXPOSITION_PARSER})`, () => {
  const labels = { repo: "acme/widgets", branch: "main", queue_type: "main", conclusion: "merged" };

  it("counts an observation exactly while it is less than an hour old", async () => {
    const s = await scrape(
      view({
        observations: [merged(widgets, NOW - WINDOW_MS, "old"), merged(widgets, NOW - WINDOW_MS + 1, "new")],
      }),
      { org: "acme" },
    );
    expect(valueOf(s, "mq_pr_conclusions_1h_total", labels)).to.equal(1);
  });

  it("reads nothing of another organisation, and narrows to one repository on one host", async () => {
    const gadgets = queue("acme", "github.com", "acme", "gadgets");
    const theirs = queue("rival", "github.com", "acme", "widgets");
    const v = view({ queues: [widgets, gadgets, theirs], observations: [merged(theirs, NOW)] });
    const acme = await scrape(v, { org: "acme" });
    expect(valueOf(acme, "mq_pr_conclusions_1h_total", labels)).to.equal(0);
    const repos = (s: typeof acme) => [...new Set(s.samples.map((x) => x.labels.repo))].sort();
    expect(repos(acme)).to.deep.equal(["acme/gadgets", "acme/widgets"]);
    const one = await scrape(v, {
      org: "acme",
      repo: { host: "github.com", owner: "acme", name: "gadgets" },
    });
    expect(repos(one)).to.deep.equal(["acme/gadgets"]);
  });

  it("adds up queues that share every label (the same owner/name on two hosts)", async () => {
    const mirror = queue("acme", "git.example.com", "acme", "widgets");
    const s = await scrape(view({ observations: [merged(widgets, NOW), merged(mirror, NOW, "m")] }), {
      org: "acme",
    });
    expect(valueOf(s, "mq_pr_conclusions_1h_total", labels)).to.equal(2);
  });

  it("leaves CI runs per merged PR out while nothing merged", async () => {
    const started: Observation = { ...merged(widgets, NOW, "s"), kind: "run_started", label: null };
    const s = await scrape(view({ observations: [started] }), { org: "acme" });
    expect(s.samples.filter((x) => x.name === "mq_ci_runs_per_merged_pr_1h")).to.deep.equal([]);
    expect(s.families.map((f) => f.name)).to.include("mq_ci_runs_per_merged_pr_1h");
  });

  it("escapes label values so that any branch name reads back unchanged", async () => {
    const odd = queue("acme", "github.com", "acme", "widgets", 'release "v2"\\next\nline');
    const s = await scrape(view({ queues: [odd] }), { org: "acme" });
    expect(valueOf(s, "mq_depth_current", { branch: odd.branch })).to.equal(0);
  });

  it("rejects text that is not the exposition format", () => {
    expect(() => checkExposition('# TYPE x gauge\nx{repo="a" 1\n')).to.throw();
  });
});
