import { DEFAULT_WORKLOAD, type SimulationOptions } from "@mainline/sim";

/** One of the generated loads: the simulator's options and the label its figures are reported under. */
export interface GeneratedLoad {
  mode: "SINGLE" | "PARALLEL";
  label: string;
  seed: number;
  options: SimulationOptions;
}

/**
 * The generated loads every pass is judged on besides the bench files (generated-loads.ts, per-seed.ts): per mode,
 * 250 PRs at 12, 24 and 40 arrivals per hour, 3% and 8% bad, one load per workload seed, 4 slots and batches of 4,
 * the generator's mix of priorities, no-batch PRs and cancellations; `overrides` laid over those settings.
 */
export function* generatedLoads(
  seeds: readonly number[],
  overrides: Record<string, unknown>,
): Generator<GeneratedLoad> {
  for (const mode of ["SINGLE", "PARALLEL"] as const)
    for (const arrivalsPerHour of [12, 24, 40])
      for (const failureProbability of [0.03, 0.08])
        for (const seed of seeds)
          yield {
            mode,
            label: `generated ${mode} ${arrivalsPerHour}/h ${failureProbability}`,
            seed,
            options: {
              settings: {
                mode,
                concurrency: 4,
                batch: true,
                batchingMinSize: 4,
                batchingMaxWaitTimeMinutes: 1,
                ...overrides,
              },
              workload: { ...DEFAULT_WORKLOAD, seed, prCount: 250, arrivalsPerHour, failureProbability },
            },
          };
}
