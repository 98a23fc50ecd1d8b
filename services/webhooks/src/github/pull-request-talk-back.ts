import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, ensureConsumer, type ConsumerHandle, type MessageCodec } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { PullRequestEventType, PullRequestLifecycleEvent, PullRequestState } from "@mainline/proto/queue";
import { failureComment } from "../domain/github/failure-comment.js";
import { checkRunView } from "../domain/github/pull-request-check.js";
import type { GitHubOutbox, RepoTarget } from "../store/github-outbox.js";
import type { QueueFacts } from "./queue-facts.js";

const DURABLE = "webhooks-github";
/** Queued PRs whose place is refreshed when one ahead leaves: each is a GitHub write, so a long queue is capped. */
const MAX_PLACES_REFRESHED = 20;
const LEAVES_QUEUE = new Set([PullRequestState.MERGED, PullRequestState.FAILED, PullRequestState.CANCELLED]);

const codec: MessageCodec<PullRequestLifecycleEvent> = {
  encode: (m) => PullRequestLifecycleEvent.encode(m),
  decode: (b) => PullRequestLifecycleEvent.decode(b),
};

export async function provisionTalkBackConsumer(jsm: JetStreamManager, ackWaitMs: number): Promise<void> {
  await ensureConsumer(jsm, STREAMS.events.name, {
    durable: DURABLE,
    filterSubjects: [SUBJECTS.pullRequestEvent],
    ackWaitMs,
    maxDeliver: 1000,
  });
}

export interface TalkBackOptions {
  js: JetStreamClient;
  outbox: GitHubOutbox;
  facts: QueueFacts;
  logger: Logger;
  /** Where users reach Mainline: the check run and comments link to the PR's page there. */
  publicUrl: string;
  now?: () => Date;
}

/**
 * Turns each PR lifecycle event into what GitHub should show: the PR head's check run at the event's state (with
 * its place in the queue, or why it failed) and, when it failed, a comment. Both are written to the outbox before
 * the event is acked, so a crash loses neither; the outbox loop sends them. PRs of repositories no installation of
 * their organisation covers are left alone.
 */
export function startPullRequestTalkBack(options: TalkBackOptions): Promise<ConsumerHandle> {
  const now = options.now ?? (() => new Date());
  return consume({
    js: options.js,
    stream: STREAMS.events.name,
    durable: DURABLE,
    codec,
    logger: options.logger,
    // One at a time, in stream order: a check run is created with the view of its PR's first event.
    async handler({ data: event, streamSequence }) {
      const repo: RepoTarget | undefined = event.repository && {
        host: event.repository.host,
        owner: event.repository.owner,
        name: event.repository.name,
      };
      if (!repo || event.status === PullRequestState.UNSPECIFIED) return;
      const { facts, outbox } = options;
      const [installation, pr, queue] = await Promise.all([
        facts.installationFor(event.org, repo),
        facts.pullRequest(event.org, repo, event.targetBranch, event.prNumber),
        facts.queue(event.org, repo, event.targetBranch),
      ]);
      if (installation === undefined) return;
      // The queue or the PR is gone (deleted since): nothing left to show.
      if (!pr || !queue || !pr.headSha) return;
      const target = { org: event.org, repo, prNumber: event.prNumber };
      const pageUrl = pullRequestPage(options.publicUrl, repo, event.targetBranch, event.prNumber);
      const detailsUrl = absolute(
        options.publicUrl,
        event.failureReason !== undefined ? pr.failureDetailsUrl : undefined,
      );
      const position = queue.enqueued.findIndex((entry) => entry.number === event.prNumber);
      if (queue.statusCheckEnabled) {
        const view = checkRunView({
          state: event.status,
          targetBranch: event.targetBranch,
          ...(position >= 0 && { position: position + 1, queueLength: queue.enqueued.length }),
          ...(event.failureReason !== undefined && { failureReason: event.failureReason }),
          ...(event.cancellationReason !== undefined && { cancellationReason: event.cancellationReason }),
          ...(detailsUrl !== undefined && { failureDetailsUrl: detailsUrl }),
          ...(pr.notes !== undefined && { notes: pr.notes }),
          pageUrl,
        });
        await outbox.setCheckRun(target, pr.headSha, view, pageUrl, streamSequence, now());
        // The PRs behind one that left moved up: their check runs say their new place.
        if (LEAVES_QUEUE.has(event.status)) {
          const waiting = queue.enqueued
            .map((entry, index) => ({ ...entry, position: index + 1 }))
            .filter(
              (entry) =>
                entry.state === PullRequestState.PENDING && entry.number !== event.prNumber && entry.headSha,
            )
            .slice(0, MAX_PLACES_REFRESHED);
          for (const entry of waiting) {
            const entryPage = pullRequestPage(options.publicUrl, repo, event.targetBranch, entry.number);
            const entryView = checkRunView({
              state: PullRequestState.PENDING,
              targetBranch: event.targetBranch,
              position: entry.position,
              queueLength: queue.enqueued.length,
              pageUrl: entryPage,
            });
            const entryTarget = { org: event.org, repo, prNumber: entry.number };
            await outbox.setCheckRun(entryTarget, entry.headSha, entryView, entryPage, streamSequence, now());
          }
        }
      }
      if (event.type === PullRequestEventType.FAILED && queue.commentsEnabled) {
        const body = failureComment({
          targetBranch: event.targetBranch,
          failureReason: event.failureReason,
          failureDetailsUrl: detailsUrl,
          pageUrl,
        });
        await outbox.addComment(`failed:${event.eventId}`, target, body, now());
      }
    },
  });
}

/** Mainline's web page of a PR (web/src/router.ts: /pull-request?repo=host/owner/name&branch=&pr=). */
function pullRequestPage(publicUrl: string, repo: RepoTarget, branch: string, pr: number): string {
  const query = new URLSearchParams({
    repo: `${repo.host}/${repo.owner}/${repo.name}`,
    branch,
    pr: String(pr),
  });
  return `${publicUrl.replace(/\/+$/, "")}/pull-request?${query.toString()}`;
}

/** The coordinator names Mainline's own pages by path (/v1/...); an external CI's page is already absolute. */
function absolute(publicUrl: string, url: string | undefined): string | undefined {
  if (url === undefined || url === "") return undefined;
  return url.startsWith("/") ? `${publicUrl.replace(/\/+$/, "")}${url}` : url;
}
