import { callUnary, createGrpcClient } from "@mainline/kit/grpc/index";
import { FlakyAnalyticsClient, TestStatus } from "@mainline/proto/flaky";
import type { FailedTestsKnowledge, KnownTestStatus, TestKnowledge } from "../domain/index.js";
import type { QueueAddress } from "./queue-key.js";

/** Where the queue asks about a run's failed tests: flaky-analytics. */
export interface TestStatusSource {
  knowledgeOf(
    queue: QueueAddress,
    testIds: readonly string[],
    deadlineMs: number,
  ): Promise<FailedTestsKnowledge>;
  close(): void;
}

const STATUS_WORDS: Partial<Record<TestStatus, KnownTestStatus>> = {
  [TestStatus.HEALTHY]: "healthy",
  [TestStatus.FLAKY]: "flaky",
  [TestStatus.BROKEN]: "broken",
};

/** flaky-analytics' GetTestsStatus, one call per failed run, with the caller's deadline. */
export class FlakyAnalyticsTestStatus implements TestStatusSource {
  private readonly client: FlakyAnalyticsClient;

  constructor(address: string) {
    this.client = createGrpcClient(FlakyAnalyticsClient, address);
  }

  async knowledgeOf(
    queue: QueueAddress,
    testIds: readonly string[],
    deadlineMs: number,
  ): Promise<FailedTestsKnowledge> {
    const response = await callUnary(
      this.client.getTestsStatus.bind(this.client),
      { org: queue.org, repo: queue.repo, testIds: [...testIds], targetBranch: queue.targetBranch },
      { deadlineMs },
    );
    const tests: Record<string, TestKnowledge> = {};
    for (const test of response.tests) {
      if (!test.known) continue;
      tests[test.testId] = {
        status: STATUS_WORDS[test.status] ?? "unknown",
        quarantined: test.quarantined,
        statusSince: test.statusSince?.getTime() ?? null,
        // The target's latest run failed it: since that run, as far as anyone here knows.
        failedOnTargetAt: test.failedOnTarget === true ? (test.targetRunAt?.getTime() ?? null) : null,
      };
    }
    return { quarantiningEnabled: response.quarantiningEnabled, tests };
  }

  close(): void {
    this.client.close();
  }
}
