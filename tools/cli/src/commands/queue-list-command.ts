import type { Command } from "commander";
import type { RepositoryRef } from "../api/api-types.js";
import type { CliContext } from "../cli-context.js";
import { parseRepositoryRef, formatRepositoryRef } from "../domain/repository-ref.js";
import { formatTable } from "../output/table.js";

/** One row of POST /listQueues (the gateway's list-queues-endpoint.ts). */
interface QueueSummary {
  repo: RepositoryRef;
  branch: string;
  state: string;
  mode: string;
  concurrency: number;
  batch: boolean;
  depth: number;
  notReady: number;
  testing: number;
  testRunsInFlight: number;
  lastHour: { merged: number; failed: number; cancelled: number };
}

/** `mainline queue list`: every queue of the token's organisation (or of one repository), as the web page lists them. */
export function registerQueueListCommand(program: Command, cli: CliContext): void {
  const queue = program.commands.find((c) => c.name() === "queue");
  if (!queue) throw new Error("register the queue commands first");
  queue
    .command("list")
    .description("every queue of the organisation, or of one repository with --repo")
    .option("--repo <host/owner/name>", "only this repository's queues (MAINLINE_REPO is not used here)")
    .action(async (opts: { repo?: string }, command: Command) => {
      const repo = opts.repo ? parseRepositoryRef(opts.repo, "--repo") : undefined;
      const { queues } = await cli
        .api()
        .post<{ queues: QueueSummary[] }>("/listQueues", repo ? { repo } : {});
      cli.output(command).result({ queues }, () =>
        queues.length === 0
          ? repo
            ? `${formatRepositoryRef(repo)} has no queue (mainline queue create makes one)`
            : "No queue yet (mainline queue create makes one)"
          : formatTable(
              ["QUEUE", "STATE", "MODE", "DEPTH", "TESTING", "RUNS", "LAST HOUR"],
              queues.map((q) => [
                `${formatRepositoryRef(q.repo)} → ${q.branch}`,
                q.state,
                `${q.mode} ×${q.concurrency}${q.batch ? " batch" : ""}`,
                String(q.depth) + (q.notReady > 0 ? ` (+${q.notReady} not ready)` : ""),
                String(q.testing),
                String(q.testRunsInFlight),
                `merged ${q.lastHour.merged} · failed ${q.lastHour.failed} · cancelled ${q.lastHour.cancelled}`,
              ]),
            ),
      );
    });
}
