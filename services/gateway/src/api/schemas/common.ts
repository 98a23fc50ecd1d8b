import { z } from "zod";
import { boundedText, branchName, LIMITS } from "./limits.js";

export { prNumber } from "./limits.js";

export const repoSchema = z.object({
  host: boundedText("repository host, e.g. github.com", LIMITS.host),
  owner: boundedText("repository owner or organization", LIMITS.owner),
  name: boundedText("repository name", LIMITS.name),
});
export type RepoInput = z.infer<typeof repoSchema>;

export const targetBranch = branchName("branch the queue targets");

/** States and enums are accepted in any case on input and written UPPERCASE (compat-notes). */
export function upperEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(
    (v) => (typeof v === "string" ? v.toUpperCase() : v),
    z.enum(values, { error: `must be one of ${values.join(", ")}` }),
  );
}

export const isoDateTime = z.iso.datetime({ offset: true });

export const emptyObject = z.object({}).strict();
