import { InvalidArgumentError } from "../errors/index.js";
import type { FindOptions, IndexKeys, SortSpec } from "./store.js";

/** Checks shared by both adapters, so a bad option fails the same way whichever is configured. */
export function assertFilter(filter: unknown): asserts filter is object {
  if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
    throw new InvalidArgumentError("filter", "must be a query document");
  }
}

function assertDirections(field: string, spec: SortSpec | IndexKeys, allowEmpty: boolean): void {
  const entries = Object.entries(spec);
  if (!allowEmpty && entries.length === 0)
    throw new InvalidArgumentError(field, "must name at least one field");
  for (const [path, direction] of entries) {
    if (direction !== 1 && direction !== -1) {
      throw new InvalidArgumentError(field, `direction of "${path}" must be 1 or -1`);
    }
  }
}

export function assertFindOptions(options: FindOptions): void {
  for (const name of ["limit", "skip"] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new InvalidArgumentError(name, "must be a non-negative integer");
    }
  }
  if (options.sort) assertDirections("sort", options.sort, true);
}

export function assertIndexKeys(keys: IndexKeys): void {
  assertDirections("keys", keys, false);
}

/** The driver's default index name: `field_1_other_-1`. */
export function defaultIndexName(keys: IndexKeys): string {
  return Object.entries(keys)
    .map(([field, direction]) => `${field}_${direction}`)
    .join("_");
}
