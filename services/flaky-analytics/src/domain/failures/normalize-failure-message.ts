import { createHash } from "node:crypto";

export interface NormalizedFailure {
  /** Same for two failures that differ only in volatile details; safe as a document key. */
  groupKey: string;
  /** The message with volatile details replaced by placeholders, short enough for a list. */
  summary: string;
}

const MAX_SUMMARY_CHARS = 200;
export const NO_MESSAGE_SUMMARY = "(no failure message)";

/**
 * Ordered: each pattern runs on the output of the ones above, so the specific shapes (a timestamp,
 * a uuid) are replaced before the generic ones (a number) could cut them into pieces.
 */
const VOLATILE: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, "<timestamp>"],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, "<time>"],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>"],
  [/\b0x[0-9a-f]+\b/gi, "<address>"],
  [/@[0-9a-f]{6,}\b/gi, "@<address>"],
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi, "<url>"],
  [/(?:\b[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}/g, "<path>"],
  [/\b(?:[\w.-]+\/)+[\w-]+\.[A-Za-z]\w{0,4}\b/g, "<path>"],
  [/\b\d{1,3}(?:\.\d{1,3}){3}\b/g, "<ip>"],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, "<hex>"],
  [/(?<![\w.])-?\d+(?:\.\d+)?/g, "<n>"],
];

/**
 * Reduces a failure message to what stays the same from one occurrence to the next: numbers,
 * hex ids, uuids, paths, urls, timestamps and memory addresses become placeholders.
 */
export function normalizeFailureMessage(message: string | undefined): NormalizedFailure {
  const collapsed = (message ?? "").replace(/\s+/g, " ").trim();
  if (collapsed === "") return { groupKey: keyOf(NO_MESSAGE_SUMMARY), summary: NO_MESSAGE_SUMMARY };
  let normalized = collapsed;
  for (const [pattern, placeholder] of VOLATILE) normalized = normalized.replace(pattern, placeholder);
  // Long messages differ mostly in their tails (diffs, dumps); the head identifies the failure.
  const summary =
    normalized.length > MAX_SUMMARY_CHARS
      ? `${normalized.slice(0, MAX_SUMMARY_CHARS - 1).trimEnd()}…`
      : normalized;
  return { groupKey: keyOf(summary), summary };
}

function keyOf(summary: string): string {
  return createHash("sha256").update(summary).digest("hex").slice(0, 32);
}
