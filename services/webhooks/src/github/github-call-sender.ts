import { createHash } from "node:crypto";
import { MainlineError } from "@mainline/kit/errors/index";
import { GitHubTerminalError, type GitHubAppClient, type GitHubOctokit } from "@mainline/kit/github/index";
import { hasMarker, withMarker } from "../domain/github/comment-marker.js";
import { CHECK_RUN_NAME, type CheckRunView } from "../domain/github/pull-request-check.js";
import type { GitHubCall } from "../store/github-outbox.js";
import type { QueueFacts } from "./queue-facts.js";

/** The installation that covered a repository no longer does (or never did): nothing to send it through. */
export class NoInstallationError extends MainlineError {
  readonly code = "FAILED_PRECONDITION";
  readonly retryable = false;
}

/**
 * Makes one outbox call on GitHub: creates or updates the check run of a PR head, or posts a comment. A call may
 * have reached GitHub before the process died (then `retried` is true): the check run is found again by its
 * external id and the comment by its marker, so neither is made twice.
 */
export class GitHubCallSender {
  constructor(
    private readonly client: GitHubAppClient,
    private readonly facts: QueueFacts,
  ) {}

  /** What GitHub now has: ids, and the version of the call it shows (a check run is created with its first view). */
  async send(
    call: GitHubCall,
    retried: boolean,
  ): Promise<{ checkRunId?: number; commentId?: number; sentVersion?: number }> {
    // Resolved on every attempt: an installation disconnected meanwhile must not be used, and the coordinator
    // only answers with an installation of the call's own organisation that covers the repository.
    const installationId = await this.facts.installationFor(call.org, call.repo);
    if (installationId === undefined)
      throw new NoInstallationError(
        `no GitHub App installation of ${call.org} covers ${call.repo.host}/${call.repo.owner}/${call.repo.name}`,
      );
    const github = this.client.installation(installationId);
    const what = `${call.kind} on ${call.repo.owner}/${call.repo.name}#${call.prNumber}`;
    return this.client.call<{ checkRunId?: number; commentId?: number; sentVersion?: number }>(what, () =>
      call.kind === "check-run" ? this.checkRun(github, call, retried) : this.comment(github, call, retried),
    );
  }

  private async checkRun(
    github: GitHubOctokit,
    call: GitHubCall,
    retried: boolean,
  ): Promise<{ checkRunId: number; sentVersion: number }> {
    const { view, headSha } = call;
    if (!view || !headSha) throw new GitHubTerminalError(`${call._id} has no view`, 0, "INTERNAL");
    const owner = call.repo.owner;
    const repo = call.repo.name;
    const externalId = externalIdOf(call._id);
    const fieldsOf = (shown: CheckRunView) => ({
      status: shown.status,
      ...(shown.conclusion !== undefined && {
        conclusion: shown.conclusion,
        completed_at: new Date().toISOString(),
      }),
      ...(call.detailsUrl !== undefined && { details_url: call.detailsUrl }),
      output: { title: shown.title, summary: shown.summary },
    });
    let checkRunId = call.checkRunId;
    if (checkRunId === undefined && retried) {
      const listed = await github.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
        owner,
        repo,
        ref: headSha,
        check_name: CHECK_RUN_NAME,
        filter: "all",
        per_page: 100,
      });
      const found = listed.data.check_runs.find((run) => run.external_id === externalId);
      if (found) checkRunId = Number(found.id);
    }
    if (checkRunId !== undefined) {
      await github.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
        owner,
        repo,
        check_run_id: checkRunId,
        ...fieldsOf(view),
      });
      return { checkRunId, sentVersion: call.version };
    }
    // Created with the view of the first event; a later one follows as an update (the call stays pending).
    const first = call.firstView ?? view;
    const created = await github.request("POST /repos/{owner}/{repo}/check-runs", {
      owner,
      repo,
      name: CHECK_RUN_NAME,
      head_sha: headSha,
      external_id: externalId,
      ...fieldsOf(first),
    });
    return {
      checkRunId: Number(created.data.id),
      sentVersion: call.firstView ? (call.firstVersion ?? 0) : call.version,
    };
  }

  private async comment(
    github: GitHubOctokit,
    call: GitHubCall,
    retried: boolean,
  ): Promise<{ commentId: number }> {
    const owner = call.repo.owner;
    const repo = call.repo.name;
    if (retried) {
      // Comments since the call was queued: a post that reached GitHub before a crash is among them.
      const listed = await github.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner,
        repo,
        issue_number: call.prNumber,
        since: new Date(call.createdAt.getTime() - 60_000).toISOString(),
        per_page: 100,
      });
      const found = listed.data.find((comment) => hasMarker(comment.body, call._id));
      if (found) return { commentId: Number(found.id) };
    }
    const posted = await github.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner,
      repo,
      issue_number: call.prNumber,
      body: withMarker(call.body ?? "", call._id),
    });
    return { commentId: Number(posted.data.id) };
  }
}

/** GitHub's external_id of our check run: short and without the organisation's name in clear. */
function externalIdOf(callId: string): string {
  return `mainline-${createHash("sha256").update(callId).digest("hex").slice(0, 32)}`;
}
