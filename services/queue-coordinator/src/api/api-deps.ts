import type { TestRunOutputs } from "@mainline/kit/streams/index";
import type { QueueEngine } from "../app/queue-engine.js";
import type { TestRunReports } from "../app/test-run-reports.js";
import type { PullRequestRecords } from "../store/pull-request-records.js";
import type { QueueRepository } from "../store/queue-repository.js";
import type { RepositoryConnections } from "../store/repository-connections.js";
import type { BranchPushes } from "../store/branch-pushes.js";
import type { GitHubInstallations } from "../store/github-installations.js";
import type { InsightHours } from "../store/insight-hours.js";
import type { RequestKeys } from "../store/request-keys.js";
import type { TestRunRecords } from "../store/test-run-records.js";

/** What the gRPC handlers reach: commands go through the engine (or the reports), queries read the stores. */
export interface ApiDeps {
  engine: QueueEngine;
  queues: QueueRepository;
  records: PullRequestRecords;
  runs: TestRunRecords;
  connections: RepositoryConnections;
  installations: GitHubInstallations;
  pushes: BranchPushes;
  requestKeys: RequestKeys;
  reports: TestRunReports;
  outputs: TestRunOutputs;
  insightHours: InsightHours;
  clock: () => Date;
}

export const NOT_SUBMITTED =
  "Pull request with the provided number does not exist or has never been submitted to the specified queue before";
