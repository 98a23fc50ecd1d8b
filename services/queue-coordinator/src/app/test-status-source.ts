import { callUnary, createGrpcClient } from "@mainline/kit/grpc/index";
import { FlakyAnalyticsClient, TestStatus } from "@mainline/proto/flaky";
import type { QueueAddress } from "./queue-key.js";

/** What flaky-analytics knows of one failed test, as the queue weighs it. */
export interface TestStatusFact {
  id: string;
  /** False for a test flaky-analytics has no record of. */
  known: boolean;
  status?: "healthy" | "flaky" | "broken";
  quarantined: boolean;
  /** The test's latest run on the queue's target branch failed (undefined: no such run kept). */
  failedOnTarget?: boolean;
  /** When that run on the target happened (epoch ms). */
  targetRunAt?: number;
}

/** Where the queue asks about a run's failed tests: flaky-analytics, or a stand-in in tests of the planner. */
export interface TestStatusSource {
  statusOf(queue: QueueAddress, testIds: readonly string[], deadlineMs: number): Promise<TestStatusFact[]>;
  close(): void;
}

const STATUS_WORDS: Partial<Record<TestStatus, TestStatusFact["status"]>> = {
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

  async statusOf(
    queue: QueueAddress,
    testIds: readonly string[],
    deadlineMs: number,
  ): Promise<TestStatusFact[]> {
    const response = await callUnary(
      this.client.getTestsStatus.bind(this.client),
      { org: queue.org, repo: queue.repo, testIds: [...testIds], targetBranch: queue.targetBranch },
      { deadlineMs },
    );
    return response.tests.map((test) => {
      const status = STATUS_WORDS[test.status];
      return {
        id: test.testId,
        known: test.known,
        ...(status !== undefined && { status }),
        quarantined: test.quarantined,
        ...(test.failedOnTarget !== undefined && { failedOnTarget: test.failedOnTarget }),
        ...(test.targetRunAt !== undefined && { targetRunAt: test.targetRunAt.getTime() }),
      };
    });
  }

  close(): void {
    this.client.close();
  }
}
