import { hash } from "node:crypto";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { canonicalRepository } from "@mainline/contract";
import type { RepositoryRef } from "@mainline/contract";

/**
 * Namespace of every test id. Fixed forever: changing it renames every test. It is itself
 * uuidv5("mainline:test-id", the RFC 4122 URL namespace), so it can be re-derived.
 */
export const TEST_ID_NAMESPACE = "7d656bed-9898-5b34-8c4e-a9beecbe2eff";
const NAMESPACE_BYTES = Buffer.from(TEST_ID_NAMESPACE.replaceAll("-", ""), "hex");

/** What makes a test the same test from one run to the next (compat-notes, "Flaky tests"). */
export interface TestIdentity {
  /** The organisation's url slug. */
  org: string;
  repo: RepositoryRef;
  file?: string | undefined;
  classname?: string | undefined;
  /** The suite path, as the JUnit parser gives it. */
  parent?: string | undefined;
  name: string;
  /** The job or configuration the test ran under ("linux-py312"); unset and "" are the same. */
  variant?: string | undefined;
}

/**
 * The stable id of a test: UUID v5 over org, repository, file, classname, parent and name, plus
 * the variant when set. A rename, a move to another file or another suite makes a new test.
 */
export function testId(identity: TestIdentity): string {
  requireText("org_url_slug", identity.org);
  requireText("repo.host", identity.repo.host);
  requireText("repo.owner", identity.repo.owner);
  requireText("repo.name", identity.repo.name);
  // name="" is valid JUnit (jest's test('')): the suite, class and file around it keep its id apart and stable.
  if (typeof identity.name !== "string") throw new InvalidArgumentError("name", "must be a string");
  const repo = canonicalRepository(identity.repo);
  const parts = [
    identity.org.trim(),
    repo.host,
    repo.owner,
    repo.name,
    normaliseFile(identity.file),
    identity.classname ?? "",
    identity.parent ?? "",
    identity.name,
  ];
  // Without a variant the id is the same as before variants existed; with one, the two are apart.
  if (identity.variant) parts.push(identity.variant);
  // A JSON array keeps the boundaries between parts, so ("a b", "c") and ("a", "b c") differ.
  return uuidV5(JSON.stringify(parts));
}

/**
 * RFC 4122 version 5 (SHA-1) in the test-id namespace. Written out rather than taken from the
 * `uuid` package because ingest computes one per result and the package's version re-parses the
 * namespace every call (several times slower); the tests pin it to the package's output.
 */
function uuidV5(name: string): string {
  const digest = hash("sha1", Buffer.concat([NAMESPACE_BYTES, Buffer.from(name, "utf8")]), "buffer");
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  const hex = digest.toString("hex", 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
/** Windows runners write backslashes and some runners a leading "./" for the same file. */
function normaliseFile(file: string | undefined): string {
  if (!file) return "";
  return file.replaceAll("\\", "/").replace(/^(?:\.\/)+/, "");
}

function requireText(field: string, value: string): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw new InvalidArgumentError(field, "must be a non-empty string");
  }
}
