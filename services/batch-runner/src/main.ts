import { loadConfigOrExit } from "@mainline/kit/config/index";
import { createLogger } from "@mainline/kit/logging/index";
import { runMain, serveGrpc, startServiceRuntime } from "@mainline/kit/service/index";
import { startBatchRunner } from "./app/start-batch-runner.js";
import { GitHubAppClient, gitHubAppSettings } from "@mainline/kit/github/index";
import { configSchema } from "./config.js";

const config = loadConfigOrExit("batch-runner", configSchema);

runMain(createLogger("batch-runner", config.LOG_LEVEL), async () => {
  const runtime = await startServiceRuntime({
    name: "batch-runner",
    natsUrl: config.NATS_URL,
    natsUser: config.NATS_USER,
    natsPassword: config.NATS_PASSWORD,
    mongodbUri: config.MONGODB_URI,
    logLevel: config.LOG_LEVEL,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const app = gitHubAppSettings(config);
  const runner = await startBatchRunner({
    nats: runtime.nats,
    logger: runtime.logger,
    settings: {
      workDir: config.BATCH_RUNNER_WORK_DIR,
      gitIdentity: { name: config.BATCH_RUNNER_GIT_NAME, email: config.BATCH_RUNNER_GIT_EMAIL },
      ...(config.BATCH_RUNNER_CREDENTIALS_DIR !== undefined && {
        credentialsDir: config.BATCH_RUNNER_CREDENTIALS_DIR,
      }),
      jobConcurrency: config.BATCH_RUNNER_JOB_CONCURRENCY,
      maxRunSeconds: config.BATCH_RUNNER_MAX_RUN_SECONDS,
      ...(app && { github: new GitHubAppClient({ settings: app, logger: runtime.logger }) }),
    },
  });
  runtime.shutdown.on("stop-consuming", "batch-runner jobs", () => runner.stopConsuming());
  runtime.shutdown.on("finish-in-flight", "batch-runner jobs", () => runner.finishInFlight());
  // No queries of its own yet: gRPC carries the standard health service, for readiness.
  await serveGrpc(runtime, { port: config.GRPC_PORT, services: [] });
  return runtime.shutdown;
});
