import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { RepositoryRef } from "../repository-ref.js";

/** A validated list-failing-tests request, times as epoch ms. */
export interface ListFailingTestsQuery {
  org: string;
  repo: RepositoryRef;
  /** Inclusive. */
  startTime: number;
  /** Exclusive. */
  endTime: number;
  pageSize: number;
  /** Undefined for the first page (the spec: "empty for the first page"). */
  pageToken: string | undefined;
}

export const MAX_WINDOW_MS = 7 * 24 * 3_600_000;
export const MAX_PAGE_SIZE = 100;

/**
 * Checks a list-failing-tests query in the order of the spec's table, for what the gRPC wire cannot say (the
 * gateway's schema has checked the JSON shape and the date-times already). Each failure is an
 * InvalidArgumentError naming the spec's field ("repo.owner", "page_query.page_size") and the rule. An empty
 * page token is the first page.
 */
export function checkListFailingTestsQuery(query: ListFailingTestsQuery): ListFailingTestsQuery {
  const repo: RepositoryRef = {
    host: text(query.repo.host, "repo.host"),
    owner: text(query.repo.owner, "repo.owner"),
    name: text(query.repo.name, "repo.name"),
  };
  const org = text(query.org, "org_url_slug");
  time(query.startTime, "start_time");
  time(query.endTime, "end_time");
  if (query.endTime <= query.startTime)
    throw new InvalidArgumentError("end_time", "must be after start_time");
  if (query.endTime - query.startTime > MAX_WINDOW_MS) {
    throw new InvalidArgumentError("end_time", "must be within 7 days of start_time");
  }
  const { pageSize } = query;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new InvalidArgumentError("page_query.page_size", `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return { ...query, org, repo, pageToken: query.pageToken ? query.pageToken : undefined };
}

function text(value: string, field: string): string {
  if (value.trim() === "") throw new InvalidArgumentError(field, "must be a non-empty string");
  return value;
}

function time(value: number, field: string): void {
  if (!Number.isFinite(value)) throw new InvalidArgumentError(field, "is required");
}
