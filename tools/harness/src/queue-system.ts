import { connect, type NatsConnection } from "nats";
import type { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import type { GitHubAppClient } from "@mainline/kit/github/index";
import type { CoordinatorOptions } from "@mainline/queue-coordinator";
import { startBatchRunner, type BatchRunner } from "@mainline/batch-runner";
import { CoordinatorHarness } from "./coordinator-harness.js";
import { GatewayHarness } from "./gateway-harness.js";

export interface QueueSystemOptions {
  /** Where the batch-runner keeps its mirrors and worktrees: a folder in the test's own temp dir (it removes it). */
  workDir: string;
  /** Test-run jobs the batch-runner runs at once. */
  jobConcurrency: number;
  /** Cap on any run, and the timeout of runs whose queue sets none. */
  maxRunSeconds: number;
  /** The coordinator's options; with `nats` it shares the caller's nats-server, which the caller then stops. */
  coordinator?: CoordinatorOptions & { nats?: NatsServer };
  /** The batch-runner's GitHub App, for repositories of an installation. */
  github?: GitHubAppClient;
}

interface Repository {
  host: string;
  owner: string;
  name: string;
}

/**
 * The merge queue as a user reaches it: a real queue-coordinator, one batch-runner on real git and the gateway in
 * front of them, on one nats-server, with the organisation "acme" and its token.
 */
export class QueueSystem {
  private constructor(
    readonly coordinator: CoordinatorHarness,
    private readonly runnerNats: NatsConnection,
    readonly runner: BatchRunner,
    readonly gw: GatewayHarness,
    /** An ordinary token of the organisation "acme". */
    readonly token: string,
    private readonly ownsNats: boolean,
  ) {}

  static async start(options: QueueSystemOptions): Promise<QueueSystem> {
    // What started is stopped again if a later part fails, so a failed `before` leaves no process behind.
    const started: Array<() => Promise<void>> = [];
    try {
      const coordinator = await CoordinatorHarness.start(options.coordinator);
      const ownsNats = options.coordinator?.nats === undefined;
      if (ownsNats) started.unshift(() => coordinator.nats.stop());
      started.unshift(() => coordinator.stop());
      const runnerNats = await connect(coordinator.nats.connectOptions());
      started.unshift(() => runnerNats.close());
      const runner = await startBatchRunner({
        nats: runnerNats,
        logger: createLogger("batch-runner-test", process.env.TEST_LOG_LEVEL ?? "silent"),
        settings: {
          workDir: options.workDir,
          gitIdentity: { name: "Mainline", email: "mainline@localhost" },
          jobConcurrency: options.jobConcurrency,
          maxRunSeconds: options.maxRunSeconds,
          ...(options.github !== undefined && { github: options.github }),
        },
      });
      started.unshift(() => runner.stop());
      const gw = await GatewayHarness.start({ queue: coordinator.address });
      started.unshift(() => gw.stop());
      const token = await gw.organization("acme");
      return new QueueSystem(coordinator, runnerNats, runner, gw, token, ownsNats);
    } catch (error) {
      for (const stop of started) await stop();
      throw error;
    }
  }

  /** An API call as "acme" that must answer 200; its JSON body. */
  async call(route: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await this.gw.post(route, body, this.token);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${route}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  }

  /**
   * The code host's "opened" event of PR `number` ("Change N", head branch feature-N at `headSha`, onto `base`)
   * of `repo`, which the gateway must take.
   */
  async pullRequestOpened(repo: Repository, number: number, headSha: string, base = "main"): Promise<void> {
    await this.call("/code-host/pull-request-events", {
      action: "opened",
      number,
      pull_request: {
        title: `Change ${number}`,
        state: "open",
        user: { login: "dev" },
        head: { ref: `feature-${number}`, sha: headSha },
        base: { ref: base },
      },
      repository: {
        name: repo.name,
        owner: { login: repo.owner },
        html_url: `https://${repo.host}/${repo.owner}/${repo.name}`,
      },
    });
  }

  /** Everything stopped in the shutdown order: the gateway, the runner's jobs, the coordinator, its NATS. */
  async stop(): Promise<void> {
    await this.gw.stop();
    await this.runner.stop();
    await this.runnerNats.close();
    await this.coordinator.stop();
    if (this.ownsNats) await this.coordinator.nats.stop();
  }
}
