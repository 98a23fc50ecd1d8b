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

/** RFC 3339 date-time, as JSON Schema's "date-time" format requires: the offset is mandatory. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Validates a list-failing-tests body in the order of the spec's table. Each failure is an
 * InvalidArgumentError naming the field ("repo.owner", "page_query.page_size") and the rule.
 */
export function validateListFailingTestsRequest(body: unknown): ListFailingTestsQuery {
  const request = objectAt(body, "body");
  const repoObject = request["repo"];
  if (repoObject === undefined || repoObject === null) throw new InvalidArgumentError("repo", "is required");
  const repoFields = objectAt(repoObject, "repo");
  const repo: RepositoryRef = {
    host: textAt(repoFields["host"], "repo.host"),
    owner: textAt(repoFields["owner"], "repo.owner"),
    name: textAt(repoFields["name"], "repo.name"),
  };
  const org = textAt(request["org_url_slug"], "org_url_slug");
  const startTime = dateTimeAt(request["start_time"], "start_time");
  const endTime = dateTimeAt(request["end_time"], "end_time");
  if (endTime <= startTime) throw new InvalidArgumentError("end_time", "must be after start_time");
  if (endTime - startTime > MAX_WINDOW_MS) {
    throw new InvalidArgumentError("end_time", "must be within 7 days of start_time");
  }

  const pageQueryValue = request["page_query"];
  if (pageQueryValue === undefined || pageQueryValue === null) {
    throw new InvalidArgumentError("page_query", "is required");
  }
  const pageQuery = objectAt(pageQueryValue, "page_query");
  const pageSize = pageQuery["page_size"];
  if (pageSize === undefined || pageSize === null) {
    throw new InvalidArgumentError("page_query.page_size", "is required");
  }
  if (
    typeof pageSize !== "number" ||
    !Number.isInteger(pageSize) ||
    pageSize < 1 ||
    pageSize > MAX_PAGE_SIZE
  ) {
    throw new InvalidArgumentError("page_query.page_size", `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  const token = pageQuery["page_token"];
  if (token !== undefined && token !== null && typeof token !== "string") {
    throw new InvalidArgumentError("page_query.page_token", "must be a string");
  }
  return { org, repo, startTime, endTime, pageSize, pageToken: token ? token : undefined };
}

function objectAt(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(field, "must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function textAt(value: unknown, field: string): string {
  if (value === undefined || value === null) throw new InvalidArgumentError(field, "is required");
  if (typeof value !== "string" || value.trim() === "") {
    throw new InvalidArgumentError(field, "must be a non-empty string");
  }
  return value;
}

function dateTimeAt(value: unknown, field: string): number {
  if (value === undefined || value === null) throw new InvalidArgumentError(field, "is required");
  const match = typeof value === "string" ? DATE_TIME.exec(value) : null;
  if (match === null) {
    throw new InvalidArgumentError(
      field,
      "must be an RFC 3339 date-time with an offset, e.g. 2025-03-14T09:00:00Z",
    );
  }
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part))) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // Date.parse rolls 2025-02-30 over to March; a date that does not exist is an error instead.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth ||
    hour > 23 ||
    minute > 59 ||
    second > 60 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    throw new InvalidArgumentError(field, "is not a real date and time");
  }
  return Date.parse((value as string).replace(" ", "T"));
}
