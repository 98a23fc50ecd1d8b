import { z } from "zod";
import { STATUS_CHECK_STATES } from "@mainline/contract";
import { boundedText, LIMITS } from "@mainline/contract";

/**
 * The parts of GitHub's webhook payloads that Mainline reads, one schema per event. GitHub sends much more
 * (objects are loose); every field read here has a bound, so a payload that breaks one is a 400 naming it.
 */
const installationRef = z.looseObject({
  id: z.int({ error: "must be GitHub's installation id" }).min(1).max(Number.MAX_SAFE_INTEGER),
});

const account = z.looseObject({ login: boundedText("a GitHub account login", LIMITS.owner) });

const repository = z.looseObject({
  name: boundedText("repository name", LIMITS.name),
  owner: z.looseObject({ login: boundedText("repository owner", LIMITS.owner) }),
  html_url: z.url({ error: "must be the repository's URL" }).max(2048, "must be at most 2048 characters"),
});

const sha = z.string().regex(/^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$/, "must be a full commit sha (hex)");
const url = z.string().max(2048, "must be at most 2048 characters").nullish();
const name = (what: string) =>
  z.string().max(LIMITS.label, `must be at most ${LIMITS.label} characters (${what})`);
const action = boundedText("the event's action", 64);

/** Every event Mainline acts on names the installation it came through (GitHub App webhooks always do). */
export const installationEnvelope = z.looseObject({ installation: installationRef });

const repositoryList = z
  .array(z.looseObject({ full_name: boundedText("owner/name", LIMITS.owner + LIMITS.name + 1) }))
  .max(5000, "must hold at most 5000 repositories");

export const installationEvent = z.looseObject({
  action,
  installation: installationRef.extend({
    account,
    repository_selection: z.enum(["all", "selected"]).optional(),
    html_url: z.url().max(2048).optional(),
  }),
  repositories: repositoryList.nullish(),
});

export const installationRepositoriesEvent = z.looseObject({
  action,
  installation: installationRef.extend({ account, html_url: z.url().max(2048).optional() }),
  repository_selection: z.enum(["all", "selected"]).optional(),
  repositories_added: repositoryList.default([]),
  repositories_removed: repositoryList.default([]),
});

export const checkSuiteEvent = z.looseObject({
  action,
  check_suite: z.looseObject({
    id: z.number().int().nonnegative().optional(),
    head_branch: z.string().max(255).nullish(),
    head_sha: sha,
    status: z.string().max(64).nullish(),
    conclusion: z.string().max(64).nullish(),
    url: url,
    app: z
      .looseObject({ name: name("the app's name").nullish(), slug: z.string().max(255).nullish() })
      .nullish(),
  }),
  repository,
});

export const checkRunEvent = z.looseObject({
  action,
  check_run: z.looseObject({
    name: name("the check's name"),
    head_sha: sha,
    status: z.string().max(64).nullish(),
    conclusion: z.string().max(64).nullish(),
    html_url: url,
    details_url: url,
    check_suite: z.looseObject({ head_branch: z.string().max(255).nullish() }).nullish(),
    output: z.looseObject({ title: z.string().max(1024).nullish() }).nullish(),
  }),
  repository,
});

export const statusEvent = z.looseObject({
  sha,
  state: z.enum(STATUS_CHECK_STATES, {
    error: `must be ${STATUS_CHECK_STATES.slice(0, -1).join(", ")} or ${STATUS_CHECK_STATES.at(-1)}`,
  }),
  context: name("the status context"),
  target_url: url,
  description: z.string().max(1024).nullish(),
  branches: z
    .array(z.looseObject({ name: z.string().max(255) }))
    .max(1000)
    .default([]),
  repository,
});

export const workflowRunEvent = z.looseObject({
  action,
  workflow_run: z.looseObject({
    name: name("the workflow's name").nullish(),
    /** The check suite GitHub Actions runs the workflow in (its check_suite events name it). */
    check_suite_id: z.number().int().nonnegative().nullish(),
    head_branch: z.string().max(255).nullish(),
    head_sha: sha,
    status: z.string().max(64).nullish(),
    conclusion: z.string().max(64).nullish(),
    html_url: url,
  }),
  workflow: z.looseObject({ name: name("the workflow's name").nullish() }).nullish(),
  repository,
});

export const pushEvent = z.looseObject({
  ref: z.string().min(1).max(300, "must be at most 300 characters"),
  before: sha,
  after: sha,
  deleted: z.boolean().default(false),
  forced: z.boolean().default(false),
  repository: repository.extend({
    // On push events the owner may carry `name` rather than only `login`; login is still there.
    owner: z.looseObject({ login: boundedText("repository owner", LIMITS.owner).optional() }),
    full_name: boundedText("owner/name", LIMITS.owner + LIMITS.name + 1),
  }),
});

export const gitHubWebhookResponse = z.object({
  event: z.string().describe("The X-GitHub-Event header"),
  delivery: z.string().describe("The X-GitHub-Delivery header"),
  outcome: z
    .enum(["applied", "ignored", "refused", "duplicate", "queued"])
    .describe(
      "applied: Mainline acted on it; ignored: nothing Mainline tracks (the reason says why); refused: a " +
        "comment command the queue refused (the reply says why); duplicate: this delivery was handled before; " +
        "queued: a service behind the gateway is unavailable, the delivery is kept and Mainline retries it",
    ),
  reason: z.string().optional(),
  reply: z.string().optional().describe("For a /svc comment command: the reply posted on the pull request"),
});
export type GitHubWebhookResponse = z.infer<typeof gitHubWebhookResponse>;
