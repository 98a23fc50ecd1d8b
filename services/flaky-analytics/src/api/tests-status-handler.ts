import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { LIMITS, MAX_FAILED_TESTS_PER_RUN, utf8ByteLength } from "@mainline/contract";
import type { GetTestsStatusRequest, GetTestsStatusResponse } from "@mainline/proto/flaky";
import type { FlakyAnalytics } from "../app/flaky-analytics.js";
import type { TestsStatusQuery } from "../app/tests-status.js";
import { repoOf, requireOrg, requireTestId } from "./command-parser.js";
import { toProtoStatus } from "./proto-mapping.js";

/** GetTestsStatus: bounded, so one question stays a few milliseconds of map lookups. */
export function parseTestsStatus(request: GetTestsStatusRequest): TestsStatusQuery {
  const max = MAX_FAILED_TESTS_PER_RUN;
  if (request.testIds.length > max)
    throw new InvalidArgumentError(
      "test_ids",
      `must name at most ${max} tests (got ${request.testIds.length})`,
    );
  request.testIds.forEach((id, index) => {
    try {
      requireTestId(id);
    } catch {
      throw new InvalidArgumentError(`test_ids[${index}]`, "must be a test id (a UUID)");
    }
  });
  if (utf8ByteLength(request.targetBranch) > LIMITS.branch)
    throw new InvalidArgumentError("target_branch", `must be at most ${LIMITS.branch} bytes`);
  return {
    org: requireOrg(request.org),
    repo: repoOf(request.repo),
    testIds: request.testIds,
    targetBranch: request.targetBranch.trim(),
  };
}

export async function getTestsStatus(
  app: FlakyAnalytics,
  request: GetTestsStatusRequest,
): Promise<GetTestsStatusResponse> {
  const { tests: answers, quarantiningEnabled } = await app.getTestsStatus(parseTestsStatus(request));
  return {
    quarantiningEnabled,
    tests: answers.map((answer) => ({
      testId: answer.testId,
      known: answer.known,
      status: toProtoStatus(answer.status),
      quarantined: answer.quarantined,
      ...(answer.failedOnTarget !== undefined && { failedOnTarget: answer.failedOnTarget }),
      ...(answer.targetRunAt !== undefined && { targetRunAt: new Date(answer.targetRunAt) }),
      ...(answer.statusSince !== undefined && { statusSince: new Date(answer.statusSince) }),
    })),
  };
}
