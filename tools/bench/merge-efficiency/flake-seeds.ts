/**
 * The flake seeds a robustness figure is taken over: by default the file's own seed and 1001-1009, as the fifth
 * pass measured (docs/performance.md#merge-efficiency); `--seeds=FIRST-LAST` draws a wider range instead. Ten
 * seeds can mislead: a rule moved failing-2 from 4 to 7 of 10 seeds at reach there, and from 20 to 17 of 30 over
 * seeds 2001-2030 (the eighth pass in docs/planner-history.md).
 */
export function flakeSeeds(own: number, option: string | undefined): number[] {
  if (option === undefined) return [own, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009];
  const range = /^(\d{1,9})-(\d{1,9})$/.exec(option);
  const first = Number(range?.[1]);
  const last = Number(range?.[2]);
  if (range === null || first > last || last - first >= 1000) {
    throw new Error(
      `--seeds: "${option}" is not a range FIRST-LAST of whole numbers with FIRST <= LAST and at most 1000 seeds ` +
        "(e.g. --seeds=2001-2030)",
    );
  }
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * flakeSeeds for a command line: a bad range prints one line naming the option (`name`, e.g. "--generated") and
 * exits with status 2, before any simulation.
 */
export function flakeSeedsOrExit(own: number, option: string | undefined, name = "--seeds"): number[] {
  try {
    return flakeSeeds(own, option);
  } catch (error) {
    console.error((error as Error).message.replace(/^--seeds/, name));
    process.exit(2);
  }
}
