import { z } from "zod";
import { branchNameProblem, MAX_REF_NAME_BYTES } from "../git-ref-name.js";
import { LIMITS } from "../limits.js";
import { utf8Bytes } from "../utf8-bytes.js";

/**
 * The request fields every endpoint builds its schemas from, each with the 400 it answers. Bounded in UTF-8 bytes
 * as well as in characters: store keys and NATS subjects are built from the bytes, and the limits are chosen so
 * that the longest (org, repository, branch) key stays far below NATS's 4 KiB line.
 */
export const boundedText = (what: string, max: number) =>
  z
    .string({ error: `must be a string (${what})` })
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((v) => utf8Bytes(v) <= max, `must be at most ${max} bytes (UTF-8)`);

export const identifier = (what: string) => boundedText(what, LIMITS.id);

export const intInRange = (min: number, max: number, note = "") =>
  z
    .int({ error: `must be an integer from ${min} to ${max}${note}` })
    .min(min, `must be an integer from ${min} to ${max}${note}`)
    .max(max, `must be an integer from ${min} to ${max}${note}`);

/** A git branch name: git check-ref-format --branch, at most 255 bytes. */
export const branchName = (what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .max(MAX_REF_NAME_BYTES, `must be at most ${MAX_REF_NAME_BYTES} bytes (UTF-8)`)
    .superRefine((name, ctx) => {
      const problem = branchNameProblem(name);
      if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
    })
    .meta({ description: `${what}; a git branch name (git check-ref-format --branch), at most 255 bytes` });

const prNumberRule = `must be an integer from 1 to ${LIMITS.prNumber}, or the same as a string of decimal digits`;

/**
 * A PR number, as an integer or as a string of decimal digits ("6"): Trunk's own scripts send the latter.
 * "6.5", "0x6", " 6" and "" stay refused.
 */
export const prNumber = z.union(
  [
    z.int({ error: prNumberRule }).min(1, prNumberRule).max(LIMITS.prNumber, prNumberRule),
    z
      .string()
      .regex(/^[0-9]{1,10}$/, prNumberRule)
      .transform(Number)
      .pipe(z.int().min(1, prNumberRule).max(LIMITS.prNumber, prNumberRule)),
  ],
  { error: prNumberRule },
);
