import { z } from "zod";

/**
 * The parts of GitHub's `pull_request` webhook payload Mainline reads. Repositories on a plain git server (and
 * the demo) post the same shape through `mainline pr event`, so there is one path for pull-request facts.
 */
export const pullRequestEvent = z.object({
  action: z.enum(["opened", "synchronize", "closed", "reopened", "edited"], {
    error: "must be one of opened, synchronize, closed, reopened, edited",
  }),
  number: z.int().min(1, "must be a positive integer"),
  pull_request: z.object({
    number: z.int().min(1).optional(),
    title: z.string(),
    state: z.enum(["open", "closed"], { error: "must be open or closed" }),
    merged: z.boolean().nullish(),
    user: z.object({ login: z.string() }),
    head: z.object({
      ref: z.string().min(1, "must not be empty"),
      sha: z.string().regex(/^[0-9a-fA-F]{7,64}$/, "must be a commit sha (hex)"),
    }),
    base: z.object({ ref: z.string().min(1, "must not be empty") }),
  }),
  repository: z.object({
    name: z.string().min(1, "must not be empty"),
    owner: z.object({ login: z.string().min(1, "must not be empty") }),
    html_url: z.url({ error: "must be the repository's URL" }),
  }),
});
export type PullRequestEvent = z.infer<typeof pullRequestEvent>;
