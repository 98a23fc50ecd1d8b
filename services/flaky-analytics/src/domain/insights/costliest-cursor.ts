import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { TEST_INSIGHTS_PAGE, type TestInsightsPeriod } from "@mainline/contract";

/**
 * The costliest tests' next page: the position in the ranking and the period it ranks (a cursor of another
 * period would skip or repeat tests, so it is refused). Not secret: it names a position in the caller's own list.
 */
const VERSION = "c1";
const MAX_OFFSET = 1_000_000;

export function encodeCostliestCursor(period: TestInsightsPeriod, offset: number): string {
  return Buffer.from(`${VERSION}:${period}:${offset}`).toString("base64url");
}

/** The position a cursor names; 0 for none. InvalidArgumentError on `cursor` for anything else. */
export function decodeCostliestCursor(cursor: string, period: TestInsightsPeriod): number {
  if (cursor === "") return 0;
  if (cursor.length > TEST_INSIGHTS_PAGE.maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new InvalidArgumentError("cursor", "is not a cursor of this API (pass an answer's next_cursor)");
  }
  const [version, of, position, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split(":");
  const offset = Number(position);
  if (
    version !== VERSION ||
    rest.length > 0 ||
    !Number.isInteger(offset) ||
    offset < 0 ||
    offset > MAX_OFFSET
  ) {
    throw new InvalidArgumentError("cursor", "is not a cursor of this API (pass an answer's next_cursor)");
  }
  if (of !== period) {
    throw new InvalidArgumentError(
      "cursor",
      `belongs to the period ${of ?? "?"}, not ${period}: start again without it`,
    );
  }
  return offset;
}
