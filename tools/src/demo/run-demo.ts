import path from "node:path";
import {
  apiUrlFrom,
  formatRepositoryRef,
  LiveDisplay,
  MainlineApi,
  pullRequestFrame,
  runCli,
  watchPullRequests,
  type CliIo,
  type QueueKey,
  type TextSink,
} from "@mainline/cli-src";
import type { RepositoryRef, SubmittedPullRequest } from "@mainline/contract";
import { BASE_FILES, DEMO_PULL_REQUESTS, JUNIT_GLOB, TEST_COMMAND } from "./demo-project.js";
import { formatSummary, summarize, type DemoSummary } from "./demo-summary.js";
import { LocalRemote } from "./local-remote.js";

export interface DemoOptions {
  /** The gateway, as MAINLINE_URL takes it. */
  mainlineUrl: string;
  token: string;
  /** The demo's git repositories go in a folder of their own under here. */
  workDir: string;
  out: TextSink;
  /** Each run is its own repository, so the demo can run again against the same `make dev` data. */
  repo?: RepositoryRef;
  pollMs?: number;
  timeoutMs?: number;
  /** `mainline queue create` options. */
  queueSettings?: readonly string[];
}

export const DEMO_QUEUE_SETTINGS = [
  "--concurrency",
  "2",
  "--batch",
  "--batching-min-size",
  "5",
  "--batching-max-wait",
  "1",
];

export interface DemoResult {
  summary: DemoSummary;
  finals: SubmittedPullRequest[];
  remote: LocalRemote;
  targetLog: string[];
}

/**
 * `make demo`: a real git repository with ten pull requests goes through a running Mainline, every step a
 * `mainline` CLI command, and the merged result is read back from the remote's target branch.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const out = options.out;
  const say = (line = "") => out.write(`${line}\n`);
  const repo = options.repo ?? {
    host: "git.demo.local",
    owner: "demo",
    name: `shop-${Date.now().toString(36)}`,
  };
  const queue: QueueKey = { repo, targetBranch: "main" };

  say(`Creating a git server with a small project and ${DEMO_PULL_REQUESTS.length} pull requests…`);
  const remote = await LocalRemote.create(
    path.join(options.workDir, repo.name),
    BASE_FILES,
    queue.targetBranch,
  );
  for (const pr of DEMO_PULL_REQUESTS)
    await remote.pushPullRequest(pr.number, pr.branch, pr.title, pr.changes);
  say(`  remote ${remote.remoteDir}`);
  say(
    `  PRs ${DEMO_PULL_REQUESTS.map((pr) => `#${pr.number}`).join(" ")}: 2 break the tests, 1 conflicts with an earlier one`,
  );
  say();

  // The CLI runs in this process with the demo's settings; it resolves each PR head from the working clone.
  const io: CliIo = {
    stdout: out,
    stderr: out,
    env: {
      ...process.env,
      MAINLINE_URL: options.mainlineUrl,
      MAINLINE_TOKEN: options.token,
      MAINLINE_REPO: formatRepositoryRef(repo),
      MAINLINE_TARGET_BRANCH: queue.targetBranch,
    },
    cwd: remote.workDir,
    childStdio: "pipe",
  };
  const mainline = async (...argv: string[]) => {
    say(`$ mainline ${argv.map(shellQuote).join(" ")}`);
    const code = await runCli(argv, io);
    if (code !== 0) throw new Error(`mainline ${argv.join(" ")} exited with ${code}; see the message above`);
  };

  await mainline(
    "repo",
    "connect",
    "--remote",
    remote.remoteDir,
    "--command",
    TEST_COMMAND,
    "--junit",
    JUNIT_GLOB,
  );
  await mainline("queue", "create", ...(options.queueSettings ?? DEMO_QUEUE_SETTINGS));
  for (const pr of DEMO_PULL_REQUESTS) {
    await mainline(
      "pr",
      "event",
      "opened",
      String(pr.number),
      "--head",
      pr.branch,
      "--title",
      pr.title,
      "--author",
      "demo-dev",
    );
  }
  const started = Date.now();
  for (const pr of DEMO_PULL_REQUESTS) await mainline("submit", String(pr.number));
  say();
  say("Watching the queue (every PR is tested on top of the ones ahead of it, in batches of up to 5)…");

  const api = new MainlineApi(apiUrlFrom(io.env), options.token);
  let ciRuns = 0;
  // The frame is drawn synchronously, so it shows the count read by this timer at most half a second ago.
  const counting = setInterval(() => {
    remote.testBranchesPushed().then(
      (count) => (ciRuns = count),
      () => undefined,
    );
  }, 500);
  const finals = await watchPullRequests({
    api,
    queue,
    prs: DEMO_PULL_REQUESTS.map((pr) => ({ number: pr.number })),
    display: new LiveDisplay(out),
    pollMs: options.pollMs ?? 400,
    timeoutMs: options.timeoutMs ?? 10 * 60_000,
    render: (prs, elapsed) => {
      const frame = pullRequestFrame(queue, prs, elapsed);
      return { ...frame, title: `${frame.title} · CI runs ${ciRuns}` };
    },
  }).finally(() => clearInterval(counting));
  ciRuns = await remote.testBranchesPushed();
  const summary = summarize(DEMO_PULL_REQUESTS, finals, ciRuns, Date.now() - started);
  const targetLog = await remote.log();
  say();
  for (const line of formatSummary(summary, DEMO_PULL_REQUESTS.length)) say(line);
  say();
  say(`$ git -C ${remote.remoteDir} log --oneline ${queue.targetBranch}`);
  for (const line of targetLog) say(line);
  return { summary, finals, remote, targetLog };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
