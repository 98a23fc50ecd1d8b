import { createRequire } from "node:module";
import { randomUUID } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";

/**
 * A recorded payload, edited freely by tests (GitHub's payloads are deep; the schemas that read them are the
 * gateway's, not the test's).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Payload = Record<string, any>;

/** The community's recorded GitHub payloads: what GitHub really sends, not shapes we made up. */
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as {
  name: string;
  examples: Record<string, unknown>[];
}[];

/** A copy of a recorded payload of `event` (with `action`, and the first matching `where` when given). */
export function example(
  event: string,
  action?: string,
  where: (e: Record<string, unknown>) => boolean = () => true,
): Payload {
  const found = examples
    .find((d) => d.name === event)
    ?.examples.find((e) => (action === undefined || e.action === action) && where(e));
  if (!found)
    throw new Error(`no ${event}${action ? `.${action}` : ""} example in @octokit/webhooks-examples`);
  return structuredClone(found);
}

export interface Repository {
  owner: string;
  name: string;
  /** Defaults to github.com. */
  host?: string;
}

/**
 * The payload as the App's installation `installationId` on `repo` would send it: the recorded example with its
 * installation and repository names replaced (GitHub fills both in every App webhook).
 */
export function through<T extends Payload>(payload: T, installationId: number, repo?: Repository): T {
  const p: Payload = structuredClone(payload);
  p.installation = {
    ...(p.installation ?? {}),
    id: installationId,
    node_id: `MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u${installationId}`,
  };
  if (repo && p.repository) {
    const host = repo.host ?? "github.com";
    p.repository.name = repo.name;
    p.repository.full_name = `${repo.owner}/${repo.name}`;
    p.repository.owner = { ...p.repository.owner, login: repo.owner, name: repo.owner };
    p.repository.html_url = `https://${host}/${repo.owner}/${repo.name}`;
  }
  return p as T;
}

/**
 * The recorded pull_request example (`action`, opened by default) as PR `number` of `repo` onto `base`, through
 * the installation; its head branch is `feature-<number>` at a commit made of the number.
 */
export function pullRequestDelivery(
  installationId: number,
  repo: Repository,
  number: number,
  { base = "main", action = "opened" }: { base?: string; action?: string } = {},
): Payload {
  const p = through(
    example("pull_request", "opened", (e) => e.installation !== undefined),
    installationId,
    repo,
  );
  p.action = action;
  p.number = number;
  p.pull_request.number = number;
  p.pull_request.base.ref = base;
  p.pull_request.head.ref = `feature-${number}`;
  p.pull_request.head.sha = `${String(number).padStart(2, "0")}`.repeat(20);
  return p;
}

/** The recorded issue_comment.created example as the comment `body` on PR `number` of `repo`. */
export function pullRequestComment(
  installationId: number,
  repo: Repository,
  number: number,
  body: string,
): Payload {
  const p = through(example("issue_comment", "created"), installationId, repo);
  p.issue.number = number;
  p.issue.pull_request = { url: `https://api.github.com/repos/${repo.owner}/${repo.name}/pulls/${number}` };
  p.comment.body = body;
  return p;
}

export interface Delivery {
  event: string;
  payload: unknown;
  /** X-GitHub-Delivery; a fresh GUID unless given (a redelivery repeats it). */
  id?: string;
  /** Sign with this secret; null sends no signature. */
  secret?: string | null;
  /** Replace the body after signing (a tampered delivery). */
  tamper?: (body: string) => string;
}

/** The request GitHub makes: the JSON body, X-Hub-Signature-256 over its exact bytes, event and delivery headers. */
export async function githubRequest(delivery: Delivery, defaultSecret: string) {
  const body = JSON.stringify(delivery.payload);
  const secret = delivery.secret === undefined ? defaultSecret : delivery.secret;
  const id = delivery.id ?? randomUUID();
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/mainline-test",
    "x-github-event": delivery.event,
    "x-github-delivery": id,
    "x-github-hook-installation-target-type": "integration",
    ...(secret ? { "x-hub-signature-256": await sign(secret, body) } : {}),
  };
  return { id, headers, body: delivery.tamper ? delivery.tamper(body) : body };
}

/** What the gateway answers a delivery it took (200). */
export interface DeliveryAnswer {
  event: string;
  delivery: string;
  outcome: "applied" | "ignored" | "refused" | "duplicate";
  reason?: string;
  reply?: string;
}
