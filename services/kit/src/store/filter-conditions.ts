import { isIndexScalar, typeRank, type IndexScalar } from "./index-value.js";

/**
 * The part of a filter an index can answer: per top-level field path, equality with one of a few
 * scalars (`x`, `{ $eq: x }`, `{ $in: [...] }`) or a range on one type (`$gt/$gte/$lt/$lte`).
 * Everything else (`$or`, regexes, sub-document equality, ...) is left to the full evaluation by
 * mingo, which always runs on the candidates: an index only ever narrows, so a condition ignored
 * here costs speed, never correctness.
 */
export interface RangeBound {
  value: IndexScalar;
  inclusive: boolean;
}

export type FieldCondition =
  | { kind: "eq"; values: IndexScalar[] }
  | { kind: "range"; lower: RangeBound | undefined; upper: RangeBound | undefined };

type Conditions = Map<string, FieldCondition[]>;

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Date)
    return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith("$"));
}

function scalarOrUndefined(value: unknown): IndexScalar | undefined {
  return isIndexScalar(value) && value !== undefined ? value : undefined;
}

function conditionOf(value: unknown): FieldCondition | undefined {
  if (!isOperatorObject(value)) {
    const scalar = scalarOrUndefined(value);
    return scalar === undefined ? undefined : { kind: "eq", values: [scalar] };
  }
  if ("$eq" in value) {
    const scalar = scalarOrUndefined(value.$eq);
    return scalar === undefined ? undefined : { kind: "eq", values: [scalar] };
  }
  if (Array.isArray(value.$in)) {
    const values = value.$in.map(scalarOrUndefined);
    return values.every((v) => v !== undefined) ? { kind: "eq", values } : undefined;
  }
  return rangeOf(value);
}

function boundOf(value: Record<string, unknown>, strict: string, loose: string): RangeBound | undefined {
  for (const [op, inclusive] of [
    [strict, false],
    [loose, true],
  ] as const) {
    if (op in value) {
      const scalar = scalarOrUndefined(value[op]);
      // A null bound also matches missing fields in MongoDB; leave that to a scan.
      if (scalar === undefined || scalar === null) return undefined;
      return { value: scalar, inclusive };
    }
  }
  return undefined;
}

function rangeOf(value: Record<string, unknown>): FieldCondition | undefined {
  const lower = boundOf(value, "$gt", "$gte");
  const upper = boundOf(value, "$lt", "$lte");
  if (lower === undefined && upper === undefined) return undefined;
  if (lower && upper && typeRank(lower.value) !== typeRank(upper.value)) return undefined;
  return { kind: "range", lower, upper };
}

function collect(filter: Record<string, unknown>, into: Conditions): void {
  for (const [path, value] of Object.entries(filter)) {
    if (path === "$and" && Array.isArray(value)) {
      for (const part of value) {
        if (part !== null && typeof part === "object") collect(part as Record<string, unknown>, into);
      }
      continue;
    }
    if (path.startsWith("$")) continue;
    const condition = conditionOf(value);
    if (condition) into.set(path, [...(into.get(path) ?? []), condition]);
  }
}

export function indexableConditions(filter: object): Conditions {
  const conditions: Conditions = new Map();
  collect(filter as Record<string, unknown>, conditions);
  return conditions;
}

/** The equality values for a field, if some condition pins it to a few values. */
export function equalityValues(conditions: Conditions, path: string): IndexScalar[] | undefined {
  const found = conditions.get(path)?.find((c) => c.kind === "eq");
  return found?.kind === "eq" ? found.values : undefined;
}

export function rangeCondition(
  conditions: Conditions,
  path: string,
): Extract<FieldCondition, { kind: "range" }> | undefined {
  const found = conditions.get(path)?.find((c) => c.kind === "range");
  return found?.kind === "range" ? found : undefined;
}
