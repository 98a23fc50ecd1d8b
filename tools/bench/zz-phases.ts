import { parseJUnitXml } from "@mainline/flaky-analytics/domain/index";
import { groupRuns, uploadEntry } from "@mainline/flaky-analytics/app/upload-entry";
import { applyUpload } from "@mainline/flaky-analytics/app/apply-upload";
import { TestIdCache } from "@mainline/flaky-analytics/app/test-id-cache";
import { packItems } from "@mainline/flaky-analytics/store/packed-parts";
import { DEFAULT_STATUS_SETTINGS } from "@mainline/flaky-analytics/domain/index";
const tests = 20000;
function xmlOf(run: number) {
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'];
  for (let first = 0; first < tests; first += 50) {
    const cls = `com.acme.module${Math.floor(first / 1000)}.Feature${first / 50}Test`;
    parts.push(`<testsuite name="${cls}" tests="50" file="src/test/java/${cls.replaceAll(".", "/")}.java">`);
    for (let i = first; i < first + 50; i++) {
      if ((i + run) % 50 === 7) parts.push(`<testcase name="case${i}" classname="${cls}" time="0.012"><failure message="expected 1 but was ${i}" type="java.lang.AssertionError">at ${cls}.case${i}(Feature.java:${i % 300})</failure></testcase>`);
      else parts.push(`<testcase name="case${i}" classname="${cls}" time="0.004"/>`);
    }
    parts.push("</testsuite>");
  }
  parts.push("</testsuites>");
  return parts.join("\n");
}
const t: Record<string, number> = {};
const ids = new TestIdCache();
const cpu = (k: string, f: () => any) => { const s = process.cpuUsage(); const r = f(); const d = process.cpuUsage(s); t[k] = (t[k] ?? 0) + (d.user + d.system) / 1000; return r; };
const ledger = new Map<string, any>();
const settings: any = { defaultBranch: "main", status: DEFAULT_STATUS_SETTINGS };
const RUNS = 10;
for (let run = 0; run < RUNS; run++) {
  const xml = xmlOf(run);
  const upload: any = { org: "acme", repo: { host: "github.com", owner: "acme", name: "m" }, commitSha: String(run).padStart(40, "0"), branch: run % 3 ? "f" : "main", prNumber: run % 3 ? run : undefined, variant: "", jobName: "j", context: "ci", junitXml: [xml] };
  const results = cpu("parse", () => parseJUnitXml(xml));
  const runs = cpu("group", () => groupRuns(upload, "r", results, ids));
  const entry = cpu("entry", () => uploadEntry(upload, { uploadId: "u" + run, runs: runs.values(), isKnown: (id) => ledger.has(id), settings, at: 1e12 + run * 3 * 3600e3, now: 1e12 + run * 3 * 3600e3 }));
  const applied = cpu("apply", () => applyUpload("acme", "r", entry, (id) => ledger.get(id)));
  cpu("commit", () => { for (const d of applied.updated) ledger.set(d._id, d); });
  cpu("pack", () => packItems(entry.runs));
}
for (const [k, v] of Object.entries(t)) console.log(k.padEnd(8), (v * 1000 / (RUNS * tests)).toFixed(2), "µs/result");
console.log("total", (Object.values(t).reduce((a, b) => a + b) * 1000 / (RUNS * tests)).toFixed(1), "µs/result");
