/**
 * How a document is written to and read back from a key-value entry: JSON, except that Dates
 * survive the round trip as `{ "$date": "<ISO>" }` (as in MongoDB Extended JSON), so a filter on a
 * date behaves the same before and after a reload. Values JSON cannot hold (undefined, functions)
 * are dropped on write, and the in-memory copy is the decoded bytes, so memory and bucket agree.
 */
const DATE_TAG = "$date";

function replaceDates(this: unknown, key: string, value: unknown): unknown {
  // JSON.stringify calls Date#toJSON before the replacer; the holder still has the Date itself.
  const raw = (this as Record<string, unknown>)[key];
  return raw instanceof Date ? { [DATE_TAG]: raw.toISOString() } : value;
}

function reviveDates(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === DATE_TAG) {
      const iso = (value as Record<string, unknown>)[DATE_TAG];
      if (typeof iso === "string") return new Date(iso);
    }
  }
  return value;
}

export function encodeDocument(doc: object): string {
  return JSON.stringify(doc, replaceDates);
}

export function decodeDocument<T>(text: string): T {
  // Most documents hold no date: skip the reviver's per-value call for them (reloads are bulk).
  return (text.includes(`"${DATE_TAG}"`) ? JSON.parse(text, reviveDates) : JSON.parse(text)) as T;
}
