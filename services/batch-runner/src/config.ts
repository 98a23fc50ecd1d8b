import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { commonConfig, millis, port, positiveInt } from "@mainline/kit/config/index";
import { gitHubAppConfig, requireWholeGitHubApp } from "@mainline/kit/github/index";

export const configSchema = z
  .object({
    ...commonConfig,
    /** The GitHub App (installation tokens as git credentials, merges through GitHub's API); off when unset. */
    ...gitHubAppConfig,
    GRPC_PORT: port(50052),
    /**
     * Local to the replica: one bare mirror per remote and the temporary worktrees. Losing it costs
     * a re-fetch, nothing else, so a temp folder is a fine default.
     */
    BATCH_RUNNER_WORK_DIR: z
      .string()
      .min(1, "expected a directory path")
      .default(join(tmpdir(), "mainline-batch-runner")),
    /** Author and committer of the commits the runner creates (squash, merge commits). */
    BATCH_RUNNER_GIT_NAME: z.string().min(1, "expected a name").default("Mainline"),
    BATCH_RUNNER_GIT_EMAIL: z
      .string()
      .regex(/^[^\s<>]+@[^\s<>]+$/, "expected an email address such as mainline@example.com")
      .default("mainline@localhost"),
    /** Jobs of each kind (test runs, merges) this replica handles at once. */
    /**
     * Where repository credentials are mounted, one directory per Secret named by a connection's
     * `credentialsSecretName` (the Helm chart mounts `components.batch-runner.gitCredentials` here).
     */
    BATCH_RUNNER_CREDENTIALS_DIR: z.string().min(1, "expected a directory path").optional(),
    BATCH_RUNNER_JOB_CONCURRENCY: positiveInt(4, "a positive integer"),
    /** Cap on a run whose queue sets no testing timeout (timeout 0), so no run waits forever. */
    BATCH_RUNNER_MAX_RUN_SECONDS: positiveInt(24 * 60 * 60, "a positive number of seconds"),
    /**
     * How soon a job held by a replica that died is handed to another (a running job renews it). Every replica
     * provisions the shared consumers with it, so all of them should be given the same value.
     */
    BATCH_RUNNER_JOB_ACK_WAIT_MS: millis(30_000),
  })
  .superRefine(requireWholeGitHubApp);
export type Config = z.infer<typeof configSchema>;
