import { randomUUID } from "node:crypto";
import { InvalidArgumentError } from "../errors/index.js";
import type { StoredDocument } from "./store.js";

/**
 * Both adapters give every document a string `_id` (a random UUID when the caller left it out),
 * so repository code never meets a driver ObjectId. `_id` goes first, as MongoDB stores it.
 */
export function withStringId(doc: unknown, fallbackId?: unknown): StoredDocument {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc) || doc instanceof Date) {
    throw new InvalidArgumentError("document", "must be a document");
  }
  const { _id, ...rest } = doc as Record<string, unknown>;
  const id = _id ?? fallbackId ?? randomUUID();
  if (typeof id !== "string" || id === "")
    throw new InvalidArgumentError("_id", "must be a non-empty string");
  return { _id: id, ...rest };
}

/** The `_id` a filter pins by equality (`{ _id: "x" }` or `{ _id: { $eq: "x" } }`), if any. */
export function pinnedId(filter: object): string | undefined {
  const condition = (filter as Record<string, unknown>)._id;
  if (typeof condition === "string") return condition;
  if (condition !== null && typeof condition === "object" && "$eq" in condition) {
    const value = condition.$eq;
    return typeof value === "string" ? value : undefined;
  }
  return undefined;
}
