import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { git } from "@mainline/testing";
import { LocalRemote } from "../../src/demo/local-remote.js";
import type { SystemApi } from "./system-api.js";

/** Runs every check script of the tested commit; a PR that breaks the tests adds one that fails. */
export const CHECKS_COMMAND = 'for f in checks/*.sh; do sh "$f" || exit 1; done';

export interface PlannedPullRequest {
  number: number;
  branch: string;
  title: string;
  bad: boolean;
}

export interface PullRequestFinal {
  number: number;
  state: string;
  failureReason?: string;
}

/**
 * One merge queue of the system test: a real git remote (a bare repository in a temp dir), pull requests
 * pushed to it as refs/pull/N/head, each adding a check script (the bad ones a failing script), a queue with
 * batching, and the target head recorded as it moves so the test can show it only fast-forwarded.
 */
export class QueueWorkload {
  readonly heads: string[] = [];

  private constructor(
    private readonly api: SystemApi,
    readonly remote: LocalRemote,
    readonly queue: { repo: { host: string; owner: string; name: string }; targetBranch: string },
    readonly prs: readonly PlannedPullRequest[],
  ) {}

  static async create(
    api: SystemApi,
    dir: string,
    name: string,
    runner: "COMMAND" | "EXTERNAL",
    count: number,
    bad: readonly number[],
  ): Promise<QueueWorkload> {
    const repo = { host: "git.system.local", owner: "sys", name };
    const queue = { repo, targetBranch: "main" };
    const remote = await LocalRemote.create(path.join(dir, name), {
      "checks/base.sh": "exit 0\n",
      "README.md": `# ${name}\n`,
    });
    const prs: PlannedPullRequest[] = [];
    for (let number = 1; number <= count; number++) {
      const isBad = bad.includes(number);
      const pr = { number, branch: `change-${number}`, title: `Change ${number} of ${name}`, bad: isBad };
      const sha = await remote.pushPullRequest(number, pr.branch, pr.title, {
        [`checks/${isBad ? "bad" : "pr"}-${number}.sh`]: isBad ? "echo broken >&2; exit 1\n" : "exit 0\n",
        [`notes/${number}.txt`]: `${pr.title}\n`,
      });
      prs.push(pr);
      await api.ok("/code-host/pull-request-events", {
        action: "opened",
        number,
        pull_request: {
          title: pr.title,
          state: "open",
          merged: false,
          user: { login: "dev" },
          head: { ref: pr.branch, sha },
          base: { ref: "main" },
        },
        repository: { name, owner: { login: repo.owner }, html_url: `https://${repo.host}/sys/${name}` },
      });
    }
    await api.ok("/repositories/connection", {
      repo,
      remoteUrl: remote.remoteDir,
      runner: runner === "COMMAND" ? { kind: "COMMAND", command: CHECKS_COMMAND } : { kind: "EXTERNAL" },
    });
    await api.ok("/createQueue", {
      ...queue,
      concurrency: 2,
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 1,
    });
    const workload = new QueueWorkload(api, remote, queue, prs);
    workload.recordHead();
    return workload;
  }

  /** Submits a PR; a 409 after a retried call means the first attempt got through. */
  async submit(number: number): Promise<void> {
    const answer = await this.api.post("/submitPullRequest", { ...this.queue, pr: { number } });
    if (answer.status !== 200 && answer.status !== 409) {
      throw new Error(`submit #${number} of ${this.queue.repo.name}: ${answer.status} ${answer.text}`);
    }
  }

  /** The target's head, appended when it moved. */
  recordHead(): void {
    const head = git(this.remote.remoteDir, "rev-parse", this.queue.targetBranch);
    if (this.heads.at(-1) !== head) this.heads.push(head);
  }

  /** Heads that are not an ancestor of the head recorded after them (a force-push would be one). */
  notFastForwarded(): string[] {
    const bad: string[] = [];
    for (let i = 1; i < this.heads.length; i++) {
      try {
        git(this.remote.remoteDir, "merge-base", "--is-ancestor", this.heads[i - 1]!, this.heads[i]!);
      } catch {
        bad.push(`${this.heads[i - 1]} -> ${this.heads[i]}`);
      }
    }
    return bad;
  }

  /**
   * Waits until every PR is MERGED, FAILED or CANCELLED, recording the target head as it goes; after
   * `timeoutMs` a PR still open is given as "NOT FINISHED: <its state>", so the test names it.
   */
  async finals(timeoutMs: number): Promise<PullRequestFinal[]> {
    const deadline = Date.now() + timeoutMs;
    const done = new Map<number, PullRequestFinal>();
    for (;;) {
      this.recordHead();
      for (const pr of this.prs) {
        if (done.has(pr.number)) continue;
        const answer = await this.api.post("/getSubmittedPullRequest", {
          ...this.queue,
          pr: { number: pr.number },
        });
        const state = typeof answer.json.state === "string" ? answer.json.state : "";
        if (["MERGED", "FAILED", "CANCELLED"].includes(state)) {
          const reason = answer.json.failureReason;
          done.set(pr.number, {
            number: pr.number,
            state,
            ...(typeof reason === "string" && reason ? { failureReason: reason } : {}),
          });
        }
      }
      if (done.size === this.prs.length) return [...done.values()].sort((a, b) => a.number - b.number);
      if (Date.now() > deadline) {
        for (const pr of this.prs) {
          if (done.has(pr.number)) continue;
          const answer = await this.api.post("/getSubmittedPullRequest", {
            ...this.queue,
            pr: { number: pr.number },
          });
          done.set(pr.number, {
            number: pr.number,
            state: `NOT FINISHED: ${answer.status} ${answer.text.slice(0, 200)}`,
          });
        }
        return [...done.values()].sort((a, b) => a.number - b.number);
      }
      await sleep(500);
    }
  }

  /** How many times each PR's commit landed on the target (subject "Title (#N)"). */
  async landings(): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    for (const commit of await this.remote.commitsSinceBase()) {
      const number = Number(/\(#(\d+)\)$/.exec(commit.subject)?.[1] ?? 0);
      counts.set(number, (counts.get(number) ?? 0) + 1);
    }
    return counts;
  }
}
