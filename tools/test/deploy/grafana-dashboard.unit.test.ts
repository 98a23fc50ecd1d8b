import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readText, repoRoot } from "./deploy-files.js";

// deploy/grafana/mainline-dashboard.json must chart every metric of the catalogue in compat-notes.md
// ("Prometheus metrics"), filtered by the repo and branch template variables.

const GAUGES = [
  "mq_depth_current",
  "mq_awaiting_mergeability",
  "mq_testing_slots_active",
  "mq_pr_conclusions_1h_total",
  "mq_pr_restarts_1h_total",
];
const HISTOGRAMS = [
  "mq_pr_wait_duration_1h_seconds",
  "mq_pr_test_duration_1h_seconds",
  "mq_pr_time_in_queue_1h_seconds",
];
const CATALOGUE = [...GAUGES, ...HISTOGRAMS];

interface Target {
  expr: string;
  datasource?: { uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Target[];
  datasource?: { uid?: string };
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: string | { query: string } }[] };
}

describe("Grafana dashboard deploy/grafana/mainline-dashboard.json", () => {
  const dashboard = JSON.parse(readText("deploy/grafana/mainline-dashboard.json")) as Dashboard;
  const targets = dashboard.panels.flatMap((p) => p.targets ?? []);
  const exprs = targets.map((t) => t.expr);

  it("is a dashboard with a stable uid and unique panel ids on a 24-column grid", () => {
    expect(dashboard.uid)
      .to.be.a("string")
      .and.match(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.title).to.be.a("string");
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const p of dashboard.panels) expect(p.gridPos.x + p.gridPos.w, p.title).to.be.at.most(24);
  });

  it("is templated by data source, repo and branch", () => {
    const variables = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(variables.get("datasource")?.type).to.equal("datasource");
    for (const name of ["repo", "branch"]) {
      const variable = variables.get(name);
      expect(variable?.type, name).to.equal("query");
      const query = typeof variable?.query === "string" ? variable.query : variable?.query?.query;
      expect(query, name).to.match(new RegExp(`label_values\\(.*, ${name}\\)`));
    }
    for (const t of targets) expect(t.datasource?.uid).to.equal("${datasource}");
  });

  it("filters every query by the selected repo and branch", () => {
    expect(exprs.length).to.be.greaterThan(0);
    for (const expr of exprs) {
      expect(expr).to.include('repo=~"$repo"');
      expect(expr).to.include('branch=~"$branch"');
    }
  });

  it("references every metric of the catalogue", () => {
    for (const metric of CATALOGUE) {
      expect(
        exprs.some((e) => new RegExp(`\\b${metric}(_bucket)?\\{`).test(e)),
        metric,
      ).to.equal(true);
    }
  });

  it("charts the histograms as p50, p90 and p99", () => {
    for (const metric of HISTOGRAMS) {
      for (const q of ["0.5", "0.9", "0.99"]) {
        const found = exprs.some(
          (e) => e.startsWith(`histogram_quantile(${q},`) && e.includes(`${metric}_bucket{`),
        );
        expect(found, `${metric} p${Number(q) * 100}`).to.equal(true);
      }
    }
  });

  it("charts the conclusions by merged, failed and cancelled", () => {
    expect(exprs.some((e) => /sum by \(conclusion\) \(mq_pr_conclusions_1h_total\{/.test(e))).to.equal(true);
  });

  it("covers the catalogue of compat-notes.md (the repository's copy, the same text as the spec when it is beside it)", () => {
    const copy = prometheusSection(readText("deploy/grafana/metrics-catalogue.md"));
    const notes = join(repoRoot, "..", "shared", "spec", "compat-notes.md");
    if (existsSync(notes))
      expect(copy, `the copy of ${notes}`).to.equal(prometheusSection(readFileSync(notes, "utf8")));
    const named = new Set([...copy.matchAll(/`(mq_[a-z0-9_]+)`/g)].map((m) => m[1]!));
    expect([...named].sort()).to.deep.equal([...CATALOGUE].sort());
  });
});

/** The "Prometheus metrics" section of compat-notes.md, up to the next section or the end. */
function prometheusSection(text: string): string {
  const section = /## Prometheus metrics[\s\S]*?(?=\n## |$)/.exec(text)?.[0];
  expect(section, "a section named Prometheus metrics").to.be.a("string");
  return (section as string).trimEnd();
}
