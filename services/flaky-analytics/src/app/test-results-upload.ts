import { createHash } from "node:crypto";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { RepositoryRef, RunContext } from "../domain/index.js";

/** One upload of test results: JUnit files of one CI job (or one merge-queue test run). */
export interface TestResultsUpload {
  org: string;
  repo: RepositoryRef;
  commitSha: string;
  branch: string;
  prNumber?: number | undefined;
  /** The PRs of a run that tested several (a merge-queue batch): a failure there impacted each. */
  impactedPrNumbers?: readonly number[] | undefined;
  /** Keeps the same test apart across configurations ("linux-py312"); part of the test id. */
  variant: string;
  jobName: string;
  /** Epoch ms; every result of the upload happened at this time. Absent: when it arrives. */
  runStartedAt?: number | undefined;
  context: RunContext;
  junitXml: readonly string[];
  /** Chosen by the sender; derived from the content when absent, so a retried upload is a no-op. */
  uploadId?: string | undefined;
}

const MAX_FILES = 1000;

/** Rejects an upload missing what the status rules need, naming the field. */
export function validateUpload(upload: TestResultsUpload): void {
  // The gateway's bounds (README "Limits"), again: every caller of this service, not only the gateway.
  requireText("org", upload.org, 64);
  requireText("repo.host", upload.repo.host, 259);
  requireText("repo.owner", upload.repo.owner, 255);
  requireText("repo.name", upload.repo.name, 255);
  requireText("commit_sha", upload.commitSha, 64);
  // Merge-queue results name their test branch (mainline/test/<target>/<run id>), longer than a target.
  requireText("branch", upload.branch, 1024);
  if (upload.junitXml.length === 0) throw new InvalidArgumentError("junit", "must hold at least one file");
  if (upload.junitXml.length > MAX_FILES) {
    throw new InvalidArgumentError("junit", `must hold at most ${MAX_FILES} files`);
  }
  if (upload.prNumber !== undefined && !(Number.isInteger(upload.prNumber) && upload.prNumber > 0)) {
    throw new InvalidArgumentError("pr_number", "must be a positive integer");
  }
  if ((upload.impactedPrNumbers ?? []).some((n) => !(Number.isInteger(n) && n > 0))) {
    throw new InvalidArgumentError("impacted_pr_numbers", "must be positive integers");
  }
  if (upload.runStartedAt !== undefined && !Number.isFinite(upload.runStartedAt)) {
    throw new InvalidArgumentError("run_started_at", "must be a valid time");
  }
  if (upload.uploadId !== undefined) requireText("upload_id", upload.uploadId, 128);
}

/** A deterministic id for an upload sent without one: the same content twice is one upload. */
export function contentUploadId(upload: TestResultsUpload, repoKey: string): string {
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify([
      upload.org,
      repoKey,
      upload.commitSha,
      upload.branch,
      upload.prNumber ?? null,
      upload.variant,
      upload.jobName,
      upload.runStartedAt ?? null,
      upload.context,
    ]),
  );
  for (const xml of upload.junitXml) hash.update("\0").update(xml);
  return `sha256-${hash.digest("hex").slice(0, 40)}`;
}

function requireText(field: string, value: string, maxBytes: number): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw new InvalidArgumentError(field, "is required (a non-empty string)");
  }
  if (value.length > maxBytes || Buffer.byteLength(value, "utf8") > maxBytes) {
    throw new InvalidArgumentError(field, `must be at most ${maxBytes} bytes (UTF-8)`);
  }
}
