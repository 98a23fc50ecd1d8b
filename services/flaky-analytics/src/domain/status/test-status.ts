import { type TestStatus as ApiTestStatus } from "@mainline/contract";

/** The spec's status values, lowercase as the API writes them. Broken outranks flaky outranks healthy. */
export type TestStatusValue = ApiTestStatus;

export interface TestStatus {
  value: TestStatusValue;
  /** Which rule put the test in this state, in words a developer can act on. */
  reason: string;
  /** When the test entered this state (epoch ms); unchanged while the value stays the same. */
  timestamp: number;
}

/** Where a result came from. Spec rule 15 limits what merge-queue and bisection results may say. */
export type RunContext = "ci" | "merge_queue" | "bisection";
