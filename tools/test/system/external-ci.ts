import { setTimeout as sleep } from "node:timers/promises";
import { git } from "@mainline/testing";
import type { SystemApi } from "./system-api.js";
import type { QueueWorkload } from "./queue-workload.js";

/**
 * The CI of the EXTERNAL queue, played by the test: it polls the queue for test runs, "builds" each run's test
 * commit by reading its tree from the remote (a commit holding a failing check script fails), and reports the
 * verdict with POST /v1/reportTestRun, again after a lost answer (a repeat of the same verdict is harmless).
 */
export class ExternalCi {
  readonly reported = new Map<string, boolean>();
  private running = true;
  private readonly loop: Promise<void>;
  errors: string[] = [];

  constructor(
    private readonly api: SystemApi,
    private readonly workload: QueueWorkload,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.round().catch((error: Error) => this.errors.push(error.message));
      await sleep(300);
    }
  }

  private async round(): Promise<void> {
    const queue = await this.api.post("/getQueue", this.workload.queue);
    const prs = (queue.json.enqueuedPullRequests ?? []) as { testRunId?: string }[];
    const runs = new Set(prs.map((pr) => pr.testRunId).filter((id): id is string => !!id));
    for (const testRunId of runs) {
      if (this.reported.has(testRunId)) continue;
      const details = await this.api.post("/getMergeQueueTestingDetails", {
        ...this.workload.queue,
        testRunId,
      });
      const sha = details.json.testBranchSha;
      if (details.status !== 200 || details.json.status !== "IN_PROGRESS" || typeof sha !== "string" || !sha)
        continue;
      const files = git(this.workload.remote.remoteDir, "ls-tree", "-r", "--name-only", sha, "checks/");
      const passed = !/(^|\n)checks\/bad-/.test(files);
      const answer = await this.api.post("/reportTestRun", { testRunId, passed });
      // 409: already decided (a cancelled run, or our own earlier report that got through).
      if (answer.status === 200 || answer.status === 409) this.reported.set(testRunId, passed);
      else this.errors.push(`reportTestRun ${testRunId}: ${answer.status} ${answer.text}`);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
