import type { Logger } from "../logging/index.js";

/**
 * The order every service stops in (DESIGN rule 5). Stopping out of order loses work: closing NATS before the
 * consumers finish would leave messages half-handled; closing the store before gRPC would fail in-flight calls.
 */
export const SHUTDOWN_STAGES = [
  "health-not-serving",
  "stop-consuming",
  "finish-in-flight",
  "close-grpc",
  "drain-nats",
  "close-store",
  "flush-telemetry",
] as const;
export type ShutdownStage = (typeof SHUTDOWN_STAGES)[number];

export class Shutdown {
  private readonly steps = new Map<ShutdownStage, { name: string; run: () => Promise<void> | void }[]>();
  private running: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  on(stage: ShutdownStage, name: string, run: () => Promise<void> | void): void {
    const list = this.steps.get(stage) ?? [];
    list.push({ name, run });
    this.steps.set(stage, list);
  }

  /** Runs every stage in order, once; a failing step is logged and the rest still run. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (const stage of SHUTDOWN_STAGES) {
        for (const step of this.steps.get(stage) ?? []) {
          try {
            await step.run();
          } catch (error) {
            this.logger.error({ err: error, stage, step: step.name }, "shutdown step failed");
          }
        }
      }
    })();
    return this.running;
  }
}
