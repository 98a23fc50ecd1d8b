/**
 * The bound of every string and number the API takes (README "Limits"), in one place for the gateway's schemas
 * and the services' command parsers: one value, one rule. Values travel on to store keys, NATS subjects, git and
 * gRPC; a bound here keeps one caller's oversized value from reaching any of them.
 */
export const LIMITS = {
  /** DNS names are at most 253 characters; a port may follow. */
  host: 259,
  /** Nested groups (GitLab) make owners long paths. */
  owner: 255,
  name: 255,
  /** Run ids, subscription ids, upload ids, token ids. */
  id: 128,
  /** An organisation's slug. */
  slug: 64,
  /** Names of impacted targets and required statuses. */
  label: 1024,
  /** A git branch name, in UTF-8 bytes. */
  branch: 255,
  /** Largest PR number: a signed 32-bit integer, as code hosts number them (the contracts carry uint32). */
  prNumber: 2_147_483_647,
} as const;

/**
 * The UTF-8 byte bounds of a queue's address (organisation, repository, target branch): they keep every key
 * built from them (store ids, KV keys, subjects) well below NATS's 4 KiB control line, whoever calls.
 */
export const QUEUE_ADDRESS_MAX_BYTES = {
  org: LIMITS.slug,
  host: LIMITS.host,
  owner: LIMITS.owner,
  name: LIMITS.name,
  targetBranch: LIMITS.branch,
} as const;

/** An inclusive integer range. */
export type IntRange = readonly [min: number, max: number];

/** How a 400 names an integer range. */
export function integerRangeRule([min, max]: IntRange): string {
  return `must be an integer from ${min} to ${max}`;
}

export function isIntegerIn(value: unknown, [min, max]: IntRange): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

/** The length of a string in UTF-8 bytes (what keys and subjects are built from), without Node's Buffer. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
