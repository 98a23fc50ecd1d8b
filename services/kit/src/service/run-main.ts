import type { Logger } from "../logging/index.js";
import type { Shutdown } from "./shutdown.js";

/**
 * Runs a service's start function and wires SIGTERM/SIGINT to its shutdown plan. A start that fails exits
 * non-zero so the supervisor (make dev, Kubernetes) restarts the process.
 */
export function runMain(logger: Logger, start: () => Promise<Shutdown>, graceMs = 30_000): void {
  start().then(
    (shutdown) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, "stopping");
        const force = setTimeout(() => {
          logger.error({ graceMs }, "shutdown took too long; exiting");
          process.exit(1);
        }, graceMs);
        force.unref();
        shutdown.run().then(
          () => {
            logger.info("stopped");
            logger.flush();
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    },
    (error: unknown) => {
      logger.fatal({ err: error }, "failed to start");
      logger.flush();
      process.exit(1);
    },
  );
}
