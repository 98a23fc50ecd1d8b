import { z } from "zod";

const nonEmpty = (what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .trim()
    .min(1, "must not be empty");

export const repoSchema = z.object({
  host: nonEmpty("repository host, e.g. github.com"),
  owner: nonEmpty("repository owner or organization"),
  name: nonEmpty("repository name"),
});
export type RepoInput = z.infer<typeof repoSchema>;

export const targetBranch = nonEmpty("branch the queue targets");

export const prNumber = z.int({ error: "must be an integer" }).min(1, "must be a positive integer");

/** States and enums are accepted in any case on input and written UPPERCASE (compat-notes). */
export function upperEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(
    (v) => (typeof v === "string" ? v.toUpperCase() : v),
    z.enum(values, { error: `must be one of ${values.join(", ")}` }),
  );
}

export const isoDateTime = z.iso.datetime({ offset: true });

export const emptyObject = z.object({}).strict();
