/**
 * Values as an embedded index sees them. Scalars (null, numbers, strings, booleans, dates) get a
 * typed string key, so 1 and "1" never collide, and a total order that brackets by type the way
 * MongoDB does (null < numbers < strings < booleans < dates), so a range scan over one type never
 * strays into another. Missing fields index as null, as in MongoDB.
 */
export type IndexScalar = null | number | string | boolean | Date;

export function isIndexScalar(value: unknown): value is IndexScalar | undefined {
  return (
    value === null ||
    value === undefined ||
    typeof value === "number" ||
    typeof value === "string" ||
    typeof value === "boolean" ||
    value instanceof Date
  );
}

export function typeRank(value: IndexScalar): number {
  if (value === null) return 0;
  if (typeof value === "number") return 1;
  if (typeof value === "string") return 2;
  if (typeof value === "boolean") return 8;
  return 9;
}

export function compareScalars(a: IndexScalar, b: IndexScalar): number {
  const rank = typeRank(a) - typeRank(b);
  if (rank !== 0) return rank;
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (x === y || x === null || y === null) return 0;
  return x < y ? -1 : 1;
}

/** The key of one field's value; arrays and sub-documents get a JSON key (`j:`) no scalar shares. */
export function keyOfValue(value: unknown): string {
  if (value === null || value === undefined) return "z";
  if (typeof value === "number") return `n:${value}`;
  if (typeof value === "string") return `s:${value}`;
  if (typeof value === "boolean") return `b:${value}`;
  if (value instanceof Date) return `d:${value.getTime()}`;
  return `j:${JSON.stringify(value)}`;
}

/** The key of several fields' values (a compound prefix). */
export function keyOfValues(values: readonly unknown[]): string {
  return values.length === 1 ? keyOfValue(values[0]) : JSON.stringify(values.map(keyOfValue));
}

/** Reads a dotted path without descending into arrays (those make a document unindexed). */
export function valueAtPath(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split(".")) {
    if (
      current === null ||
      typeof current !== "object" ||
      Array.isArray(current) ||
      current instanceof Date
    ) {
      return Array.isArray(current) ? current : undefined;
    }
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
