import { eventually } from "@mainline/testing";
import type { MetricsSystem } from "./metrics-system.js";

export interface Repository {
  host: string;
  owner: string;
  name: string;
}

/** Drives one merge queue through the gateway's HTTP API, as CI scripts and the code host would. */
export class QueueDriver {
  constructor(
    private readonly system: MetricsSystem,
    private readonly token: string,
    readonly repo: Repository,
    readonly targetBranch = "main",
  ) {}

  private get queue() {
    return { repo: this.repo, targetBranch: this.targetBranch };
  }

  async create(): Promise<void> {
    await this.system.call("/createQueue", this.queue, this.token);
  }

  /** The code host tells about the PR: it becomes ready (mergeable) once submitted. */
  async open(pr: number): Promise<void> {
    await this.system.call(
      "/code-host/pull-request-events",
      {
        action: "opened",
        number: pr,
        pull_request: {
          title: `Change ${pr}`,
          state: "open",
          merged: false,
          user: { login: "dev" },
          head: { ref: `feature-${pr}`, sha: `${pr}`.padStart(40, "a") },
          base: { ref: this.targetBranch },
        },
        repository: {
          name: this.repo.name,
          owner: { login: this.repo.owner },
          html_url: `https://${this.repo.host}/${this.repo.owner}/${this.repo.name}`,
        },
      },
      this.token,
    );
  }

  async submit(pr: number): Promise<void> {
    await this.system.call("/submitPullRequest", { ...this.queue, pr: { number: pr } }, this.token);
  }

  async cancel(pr: number): Promise<void> {
    await this.system.call("/cancelPullRequest", { ...this.queue, pr: { number: pr } }, this.token);
  }

  async restart(pr: number): Promise<void> {
    await this.system.call("/restartTestsOnPullRequest", { ...this.queue, pr: { number: pr } }, this.token);
  }

  async stateOf(pr: number): Promise<string> {
    const { body } = await this.system.call(
      "/getSubmittedPullRequest",
      { ...this.queue, pr: { number: pr } },
      this.token,
    );
    return (body as { state: string }).state;
  }

  async waitFor(pr: number, state: string): Promise<void> {
    await eventually(async () => {
      const now = await this.stateOf(pr);
      if (now !== state) throw new Error(`PR ${pr} is ${now}, not ${state}`);
    });
  }

  /** The run testing the PR, as getQueue reports it. */
  async runOf(pr: number): Promise<string> {
    return eventually(async () => {
      const { body } = await this.system.call("/getQueue", this.queue, this.token);
      const entry = (
        body as { enqueuedPullRequests: { prNumber: number; testRunId?: string }[] }
      ).enqueuedPullRequests.find((e) => e.prNumber === pr);
      if (!entry?.testRunId) throw new Error(`PR ${pr} has no test run`);
      return entry.testRunId;
    });
  }

  async report(pr: number, passed: boolean): Promise<void> {
    const testRunId = await this.runOf(pr);
    await this.system.call("/reportTestRun", { testRunId, passed }, this.token);
  }
}
