import { createHmac, timingSafeEqual } from "node:crypto";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { canonicalRepository } from "../repository-ref.js";
import type { RepositoryRef } from "../repository-ref.js";

/** What a page token is bound to: the same listing, in the same organisation and window. */
export interface PageScope {
  org: string;
  repo: RepositoryRef;
  /** Epoch ms of start_time and end_time. */
  startTime: number;
  endTime: number;
}

const FIELD = "page_query.page_token";
const VERSION = 1;
const MAX_TOKEN_CHARS = 256;
const MAX_PAGE_INDEX = 1_000_000;

/**
 * An opaque token for one page of one listing: the page index, signed with HMAC-SHA256 over the
 * index and the scope. The scope is not in the token, so it reveals nothing, and a token used
 * with another organisation, repository or window fails verification like a forged one.
 */
export function encodePageToken(scope: PageScope, pageIndex: number, key: string | Buffer): string {
  if (!Number.isInteger(pageIndex) || pageIndex < 0 || pageIndex > MAX_PAGE_INDEX) {
    throw new RangeError(`page index ${pageIndex} is not an integer from 0 to ${MAX_PAGE_INDEX}`);
  }
  const payload = Buffer.from(JSON.stringify({ v: VERSION, p: pageIndex })).toString("base64url");
  return `${payload}.${signature(scope, payload, key).toString("base64url")}`;
}

/** The page index a token names; InvalidArgumentError on page_query.page_token if it is not genuine. */
export function decodePageToken(token: string, scope: PageScope, key: string | Buffer): number {
  if (token.length > MAX_TOKEN_CHARS) throw invalid("is too long to be a page token");
  const [payload, mac, ...rest] = token.split(".");
  if (!payload || !mac || rest.length > 0) throw invalid("is not a page token");
  const expected = signature(scope, payload, key);
  const given = Buffer.from(mac, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid("was not issued for this organisation, repository and time range");
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalid("is not a page token");
  }
  const { v, p } = (decoded ?? {}) as { v?: unknown; p?: unknown };
  if (v !== VERSION || typeof p !== "number" || !Number.isInteger(p) || p < 0)
    throw invalid("is not a page token");
  return p;
}

function signature(scope: PageScope, payload: string, key: string | Buffer): Buffer {
  const repo = canonicalRepository(scope.repo);
  // A JSON array keeps field boundaries, so no two different scopes sign the same bytes.
  const message = JSON.stringify([
    "list-failing-tests",
    scope.org,
    repo.host,
    repo.owner,
    repo.name,
    scope.startTime,
    scope.endTime,
    payload,
  ]);
  return createHmac("sha256", key).update(message).digest();
}

function invalid(rule: string): InvalidArgumentError {
  return new InvalidArgumentError(FIELD, rule);
}
