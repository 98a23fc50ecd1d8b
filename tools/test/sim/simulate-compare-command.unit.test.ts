import { expect } from "chai";
import { mainline } from "./run-mainline.js";

/** A light generated load and a small grid, so the search runs in a second. */
const LIGHT = ["--prs", "60", "--arrivals-per-hour", "4", "--seed", "5"];
const SMALL_GRID = ["--concurrency", "1,2,4", "--batch-sizes", "1,4", "--modes", "SINGLE"];

interface Out {
  rule: { minMergedPerHour: number; maxP50Minutes: number };
  searched: { concurrency: number[]; batchSizes: number[]; modes: string[]; points: number };
  rows: { label: string; keepsUp: boolean; behind: string[]; summary: { runs: { total: number } } }[];
  cheapest: string | null;
  plain: { beatenBy: { p50Minutes: { plain: number; chosen: number; times: number } } | null };
}

/** Each row's yes/no agrees with its printed merged/h and p50 against the printed rule. */
function expectVerdictsMatchFigures(stdout: string, rows: number): void {
  const [, bar, p50] =
    /merged\/h at least (\d+\.\d\d) \(95% of .*\), p50 at most (\d+) min/.exec(stdout) ?? [];
  expect(Number(bar), stdout).to.be.greaterThan(0);
  const printed = [
    ...stdout.matchAll(/^(SINGLE|PARALLEL) concurrency .*? +(\d+\.\d\d) +(\d+) .* (yes|no \(.*\))$/gm),
  ];
  expect(printed).to.have.length(rows);
  for (const [line, , merged, median, verdict] of printed) {
    const keepsUp = Number(merged) >= Number(bar) && Number(median) <= Number(p50);
    expect(keepsUp, line).to.equal(verdict === "yes");
  }
}

describe("mainline simulate --compare", () => {
  it("names the cheapest setting that keeps up, prints what it searched, and its gain on the plain queue", async () => {
    const ran = await mainline("simulate", "--compare", ...LIGHT, ...SMALL_GRID, "--json");
    expect(ran.code, ran.stderr).to.equal(0);
    const out = JSON.parse(ran.stdout) as Out;
    expect(out.searched).to.deep.include({
      concurrency: [1, 2, 4],
      batchSizes: [1, 4],
      modes: ["SINGLE"],
      points: 6,
    });
    expect(out.rows).to.have.length(6);
    const fit = out.rows.filter((r) => r.keepsUp);
    const named = fit.find((r) => r.label === out.cheapest);
    expect(named, "the cheapest is one of the rows that keep up").to.not.equal(undefined);
    for (const r of fit) expect(r.summary.runs.total).to.be.at.least(named?.summary.runs.total ?? 0);
    for (const r of out.rows) expect(r.behind.length === 0).to.equal(r.keepsUp);
    expect(out.plain.beatenBy?.p50Minutes.times).to.be.a("number");

    const text = await mainline("simulate", "--compare", ...LIGHT, ...SMALL_GRID);
    expect(text.stdout).to.include(
      "searched 6 settings: mode SINGLE x concurrency 1/2/4 x batch size 1/4 (1: no batching)",
    );
    expect(text.stdout).to.include(
      `Cheapest that keeps up (fewest CI runs, then fewest slots): ${out.cheapest}.`,
    );
    expect(text.stdout).to.match(
      /^Against the plain queue: p50 \d+ -> \d+ min, \d+\.\d\dx (faster|worse), CI runs/m,
    );
    expectVerdictsMatchFigures(text.stdout, 6);
  });

  it("--max-p50 tightens keeping up: a bound below any run's length leaves nothing", async () => {
    const ran = await mainline("simulate", "--compare", ...LIGHT, ...SMALL_GRID, "--max-p50", "20");
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stdout).to.match(/p50 at most 20 min/);
    expect(ran.stdout).to.match(/^None of these settings keeps up\.$/m);
    expect(ran.stdout).to.include("Search further: --concurrency and --batch-sizes");
    expectVerdictsMatchFigures(ran.stdout, 6);
  });

  it("--flake-draws judges every setting over that many draws of the flakes and says so", async () => {
    const flaky = [...LIGHT, "--flake-rate", "0.2", ...SMALL_GRID];
    const ran = await mainline("simulate", "--compare", ...flaky, "--flake-draws", "3", "--json");
    expect(ran.code, ran.stderr).to.equal(0);
    const out = JSON.parse(ran.stdout) as Out & { flakeSeeds: number[]; rows: { keptUpIn: number }[] };
    expect(out.flakeSeeds).to.deep.equal([5, 6, 7]);
    for (const r of out.rows) expect(r.keepsUp).to.equal(r.keptUpIn === 3 && r.behind.length === 0);

    const text = await mainline("simulate", "--compare", ...flaky, "--flake-draws", "3");
    expect(text.stdout).to.include(
      "judged over 3 draws of the flakes (seeds 5-7): figures are their means, and a setting keeps up only if it kept up in every draw",
    );
    const one = await mainline("simulate", "--compare", ...flaky);
    expect(one.stdout).to.not.include("draws of the flakes");
  });

  const bad: [string, string[], RegExp][] = [
    [
      "a concurrency of 0",
      ["--concurrency", "0"],
      /^mainline: --concurrency: 0: each must be an integer in 1\.\.64$/,
    ],
    [
      "a word in --concurrency",
      ["--concurrency", "2,lots"],
      /--concurrency 2,lots: must be whole numbers separated by commas/,
    ],
    [
      "a batch size over 64",
      ["--batch-sizes", "1,65"],
      /--batch-sizes: 65: each must be an integer in 1\.\.64/,
    ],
    ["an unknown mode", ["--modes", "single,fast"], /--modes: FAST: each must be one of SINGLE, PARALLEL/],
    ["a p50 bound of 0", ["--max-p50", "0"], /--max-p50: must be a number of minutes in 1\.\.10080/],
    ["a p50 bound that is no number", ["--max-p50", "soon"], /--max-p50 soon: must be a number of minutes/],
    [
      "a grid too large",
      ["--concurrency", "1,2,3,4,5,6,7,8", "--batch-sizes", "1,2,3,4,5"],
      /--compare: 80 settings; at most 64/,
    ],
    ["no flake draw", ["--flake-draws", "0"], /^mainline: --flake-draws: must be a whole number in 1\.\.10$/],
    [
      "a word for the flake draws",
      ["--flake-draws", "many"],
      /^mainline: --flake-draws many: must be a whole number$/,
    ],
    [
      "more flake draws than the grid allows",
      ["--prs", "300", "--flake-draws", "4"],
      /--compare: 40 settings x 300 PRs x 4 flake draws = 48000 simulated PRs; at most 40000/,
    ],
    [
      "too many PRs for the grid",
      ["--prs", "5000"],
      /--compare: 40 settings x 5000 PRs = 200000 simulated PRs; at most 40000/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`refuses ${what} with one line naming the flag, exit 2`, async () => {
      const ran = await mainline("simulate", "--compare", ...args, "--json");
      expect(ran.code).to.equal(2);
      expect(ran.stdout).to.equal("");
      expect(ran.stderr.trim().split("\n")).to.have.length(1);
      expect(ran.stderr.trim()).to.match(message);
    });
  }

  it("refuses a search flag without --compare", async () => {
    const ran = await mainline("simulate", "--prs", "5", "--batch-sizes", "4");
    expect(ran.code).to.equal(2);
    expect(ran.stderr.trim()).to.equal("mainline: --batch-sizes: only with --compare");
    const draws = await mainline("simulate", "--prs", "5", "--flake-draws", "3");
    expect(draws.code).to.equal(2);
    expect(draws.stderr.trim()).to.equal("mainline: --flake-draws: only with --compare");
  });
});
