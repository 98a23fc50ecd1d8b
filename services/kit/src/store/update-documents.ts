import { update as applyModifier } from "mingo";
import type { Modifier } from "mingo/updater";
import { InvalidArgumentError } from "../errors/index.js";

/**
 * Update and replacement documents as MongoDB reads them. Pure functions: they never touch the
 * document they are given; the embedded collection persists what they return.
 */
type Doc = Record<string, unknown>;

function isPlainObject(value: unknown): value is Doc {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
}

export function assertUpdateOperators(update: unknown): asserts update is Doc {
  if (!isPlainObject(update) || Object.keys(update).length === 0) {
    throw new InvalidArgumentError("update", "must be a non-empty document of update operators");
  }
  for (const key of Object.keys(update)) {
    if (!key.startsWith("$"))
      throw new InvalidArgumentError("update", `must use update operators, found "${key}"`);
  }
}

export function assertReplacement(replacement: unknown): asserts replacement is Doc {
  if (!isPlainObject(replacement)) throw new InvalidArgumentError("replacement", "must be a document");
  for (const key of Object.keys(replacement)) {
    if (key.startsWith("$")) {
      throw new InvalidArgumentError("replacement", `must not contain update operators, found "${key}"`);
    }
  }
}

function setPath(target: Doc, path: string, value: unknown): void {
  const parts = path.split(".");
  let node = target;
  parts.slice(0, -1).forEach((part) => {
    const next = node[part];
    node = isPlainObject(next) ? next : (node[part] = {});
  });
  node[parts.at(-1) ?? path] = value;
}

function collectEqualities(filter: Doc, into: Doc): void {
  for (const [path, condition] of Object.entries(filter)) {
    if (path === "$and" && Array.isArray(condition)) {
      for (const part of condition) if (isPlainObject(part)) collectEqualities(part, into);
      continue;
    }
    if (path.startsWith("$") || condition instanceof RegExp) continue;
    if (isPlainObject(condition) && Object.keys(condition).some((k) => k.startsWith("$"))) {
      if ("$eq" in condition) setPath(into, path, structuredClone(condition.$eq));
      continue;
    }
    setPath(into, path, structuredClone(condition));
  }
}

/** The document an upsert starts from: the filter's equality fields, as MongoDB builds it. */
export function upsertSeed(filter: object): Doc {
  const seed: Doc = {};
  collectEqualities(filter as Doc, seed);
  return seed;
}

function modify(doc: Doc, modifier: Doc): string[] {
  try {
    return applyModifier(doc, modifier as Modifier<Doc>, undefined, undefined, { cloneMode: "deep" });
  } catch (error) {
    throw new InvalidArgumentError("update", error instanceof Error ? error.message : String(error));
  }
}

/**
 * Applies `update` to a copy of `doc`. `$setOnInsert` takes effect only when `inserting` (an
 * upsert that matched nothing), as in MongoDB. `changed` is false when the result equals `doc`.
 */
export function applyUpdate(doc: Doc, update: Doc, inserting: boolean): { next: Doc; changed: boolean } {
  const { $setOnInsert: onInsert, ...operators } = update;
  const next = structuredClone(doc);
  let changedFields = Object.keys(operators).length > 0 ? modify(next, operators) : [];
  if (inserting && isPlainObject(onInsert))
    changedFields = [...changedFields, ...modify(next, { $set: onInsert })];
  return { next, changed: changedFields.length > 0 };
}
