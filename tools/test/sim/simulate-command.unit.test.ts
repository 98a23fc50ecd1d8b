import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { mainline } from "./run-mainline.js";

const dir = mkdtempSync(join(tmpdir(), "simulate-"));
function workloadFile(name: string, body: unknown): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, typeof body === "string" ? body : JSON.stringify(body));
  return path;
}

const pr = (number: number, extra: Record<string, unknown> = {}) => ({
  number,
  arrivesAtMinute: number,
  bad: false,
  testMinutes: 30,
  priority: "medium",
  noBatch: false,
  impactedTargets: [],
  cancelAtMinute: null,
  ...extra,
});

const small = {
  name: "small",
  flakeRate: 0,
  seed: 1,
  settings: { concurrency: 2, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1 },
  prs: [pr(1), pr(2, { bad: true }), pr(3), pr(4, { testMinutes: 50 }), pr(5, { cancelAtMinute: 6 })],
};

describe("mainline simulate", () => {
  it("prints exactly the issue's JSON object for a workload file, with no server", async () => {
    const ran = await mainline("simulate", "--workload", workloadFile("small", small), "--json");
    expect(ran.code, ran.stderr).to.equal(0);
    const out = JSON.parse(ran.stdout) as Record<string, unknown>;
    expect(Object.keys(out)).to.deep.equal([
      "workload",
      "settings",
      "prs",
      "merged",
      "failed",
      "cancelled",
      "stuck",
      "badMerged",
      "goodFailed",
      "goodFailedByFlakes",
      "runsPassedByQuarantine",
      "flakyRetries",
      "runs",
      "runsPerMergedPr",
      "mergedPerHour",
      "timeToMergeMinutes",
      "hours",
    ]);
    expect(out).to.include({ workload: "small", prs: 5, merged: 3, failed: 1, cancelled: 1, stuck: 0 });
    expect(out).to.include({ badMerged: 0, goodFailed: 0 });
    const runs = out.runs as { main: number; bisection: number; total: number };
    expect(runs.total).to.equal(runs.main + runs.bisection);
    expect(out.mergedPerHour).to.be.closeTo(3 / (out.hours as number), 0.01);
    expect(Object.keys(out.timeToMergeMinutes as object)).to.deep.equal(["p50", "p90", "p99", "mean"]);
  });

  it("a run takes the longest test time of the PRs it tests", async () => {
    const one = {
      ...small,
      settings: { concurrency: 1 },
      prs: [pr(1, { arrivesAtMinute: 0, testMinutes: 42 })],
    };
    const out = JSON.parse(
      (await mainline("simulate", "--workload", workloadFile("one", one), "--json")).stdout,
    );
    // Arrives at 0, tests for 42 minutes, merges in 1.
    expect(out.timeToMergeMinutes.p50).to.equal(43);
  });

  it("--set overrides one setting of the file", async () => {
    const path = workloadFile("small", small);
    const out = JSON.parse(
      (await mainline("simulate", "--workload", path, "--set", "concurrency=1", "--json")).stdout,
    );
    expect(out.settings).to.include({ concurrency: 1, batchingMinSize: 4 });
  });

  it("generates a workload from flags when no file is given", async () => {
    const ran = await mainline(
      "simulate",
      "--prs",
      "40",
      "--arrivals-per-hour",
      "10",
      "--seed",
      "3",
      "--json",
    );
    expect(ran.code, ran.stderr).to.equal(0);
    const out = JSON.parse(ran.stdout);
    expect(out.prs).to.equal(40);
    expect(out.merged + out.failed + out.cancelled).to.equal(40);
  });

  const bad: [string, string[], RegExp][] = [
    [
      "a missing file",
      ["--workload", join(dir, "nope.json")],
      /--workload: cannot read .*nope\.json \(ENOENT\)/,
    ],
    ["a file that is not JSON", ["--workload", workloadFile("garbled", "{ nope")], /workload: is not JSON/],
    [
      "a PR without a test time",
      ["--workload", workloadFile("no-time", { ...small, prs: [pr(1), pr(2, { testMinutes: "long" })] })],
      /prs\[1\]\.testMinutes: must be a number > 0/,
    ],
    [
      "a PR with an unknown priority",
      ["--workload", workloadFile("prio", { ...small, prs: [pr(1, { priority: "asap" })] })],
      /prs\[0\]\.priority: must be one of urgent, high, medium, low/,
    ],
    [
      "an unknown setting in the file",
      ["--workload", workloadFile("setting", { ...small, settings: { speed: 11 } })],
      /settings\.speed: is not a queue setting/,
    ],
    [
      "an unknown setting in --set",
      ["--workload", workloadFile("small", small), "--set", "warp=9"],
      /settings\.warp: is not a queue setting \(one of mode, concurrency, .*batchingMinSize.*\)$/m,
    ],
    ["a bad test-time range", ["--test-minutes", "35-25"], /--test-minutes 35-25: must be MIN-MAX/],
    [
      "a test time over a week",
      ["--workload", workloadFile("week", { ...small, prs: [pr(1, { testMinutes: 20_000 })] })],
      /prs\[0\]\.testMinutes: must be a number > 0 and at most 10080 \(a week\)/,
    ],
    [
      "an arrival after a year",
      ["--workload", workloadFile("year", { ...small, prs: [pr(1, { arrivesAtMinute: 600_000 })] })],
      /prs\[0\]\.arrivesAtMinute: must be a number in 0\.\.525600 \(a year\)/,
    ],
    [
      "a file with no PRs",
      ["--workload", workloadFile("empty", { ...small, prs: [] })],
      /prs: must list 1 to 20000 pull requests \(it lists 0\)/,
    ],
    [
      "an arrival rate over 3600 an hour",
      ["--arrivals-per-hour", "5000"],
      /--arrivals-per-hour 5000: must be a number > 0 and at most 3600/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`refuses ${what} with one line naming the field, exit 2`, async () => {
      const ran = await mainline("simulate", ...args, "--json");
      expect(ran.code).to.equal(2);
      expect(ran.stdout).to.equal("");
      expect(ran.stderr.trim().split("\n")).to.have.length(1);
      expect(ran.stderr).to.match(message);
    });
  }
});
