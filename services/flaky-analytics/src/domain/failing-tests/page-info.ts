import { encodePageToken } from "./page-token.js";
import type { PageScope } from "./page-token.js";

/** The spec's `page` object of a list-failing-tests response. */
export interface PageInfo {
  total_rows: number;
  total_pages: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
  page_index: number;
}

/**
 * Builds the page object. All six fields are required by the spec, so a token that leads nowhere
 * (no next page on the last one, no previous on the first) is the empty string.
 */
export function pageInfo(
  scope: PageScope,
  page: { totalRows: number; pageSize: number; pageIndex: number },
  key: string | Buffer,
): PageInfo {
  const totalPages = Math.ceil(page.totalRows / page.pageSize);
  const token = (index: number): string => encodePageToken(scope, index, key);
  return {
    total_rows: page.totalRows,
    total_pages: totalPages,
    next_page_token: page.pageIndex + 1 < totalPages ? token(page.pageIndex + 1) : "",
    prev_page_token:
      page.pageIndex > 0 ? token(Math.min(page.pageIndex - 1, Math.max(totalPages - 1, 0))) : "",
    last_page_token: totalPages > 0 ? token(totalPages - 1) : "",
    page_index: page.pageIndex,
  };
}
