/**
 * A month of one queue's history made through the real services (issue 29): PRs submitted each working day, their
 * runs reported by an external CI, some PRs bad (their batch fails and a bisection finds them), the queue paused
 * for three hours every tenth day. Time is the coordinator's own injected clock (CoordinatorOptions.clock), moved
 * forward by the driver, so a month takes seconds; every count the insights show comes from the coordinator's
 * steps, none is written by hand. The driver keeps its own tally of what it did, per UTC day, to check against.
 */

export const DAY_MS = 86_400_000;
const MINUTE = 60_000;

export interface SimClock {
  now: number;
}

export interface DayTally {
  merged: number;
  failed: number;
  runsReported: number;
  pausedMinutes: number;
}

type Post = (route: string, body: unknown) => Promise<Record<string, unknown>>;
interface RunInFlight {
  id: string;
  prNumbers: number[];
}

/** What the code host says of a PR when it opens (the queue waits for these facts before testing it). */
export function opened(number: number, repo: { owner: string; name: string }, base: string) {
  return {
    action: "opened",
    number,
    pull_request: {
      title: `Change ${number}`,
      state: "open",
      merged: false,
      user: { login: ["ada", "grace", "linus"][number % 3] },
      head: { ref: `change-${number}`, sha: `${number}`.padStart(40, "a") },
      base: { ref: base },
    },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      html_url: `https://github.com/${repo.owner}/${repo.name}`,
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Every eleventh PR breaks the tests. */
export const isBad = (pr: number) => pr % 11 === 0;

export async function simulateQueueMonth(options: {
  post: Post;
  clock: SimClock;
  queue: { repo: { host: string; owner: string; name: string }; targetBranch: string };
  /** Midnight (UTC) of the first day. */
  start: number;
  days: number;
}): Promise<Map<string, DayTally>> {
  const { post, clock, queue } = options;
  const tally = new Map<string, DayTally>();
  const today = () => {
    const key = new Date(clock.now).toISOString().slice(0, 10);
    if (!tally.has(key)) tally.set(key, { merged: 0, failed: 0, runsReported: 0, pausedMinutes: 0 });
    return tally.get(key)!;
  };
  await post("/createQueue", {
    ...queue,
    concurrency: 1,
    batch: true,
    batchingMinSize: 4,
    batchingMaxWaitTimeMinutes: 5,
    testingTimeoutMinutes: 0,
  });
  let next = 1;
  for (let day = 0; day < options.days; day++) {
    clock.now = options.start + day * DAY_MS + 9 * 60 * MINUTE;
    if (day % 10 === 4) {
      await post("/updateQueue", { ...queue, state: "PAUSED" });
      clock.now += 180 * MINUTE;
      await post("/updateQueue", { ...queue, state: "RUNNING" });
      today().pausedMinutes += 180;
    }
    const count = 4 + (day % 4);
    for (let i = 0; i < count; i++, next++) {
      await post("/code-host/pull-request-events", opened(next, queue.repo, queue.targetBranch));
      await post("/submitPullRequest", { ...queue, pr: { number: next } });
      if (isBad(next)) today().failed += 1;
      else today().merged += 1;
      clock.now += 20_000;
    }
    await settle(post, clock, queue, today);
  }
  return tally;
}

/** Reports every run the queue starts (pass unless it holds a bad PR) until the queue is empty. */
async function settle(post: Post, clock: SimClock, queue: object, today: () => DayTally): Promise<void> {
  let q: { enqueuedPullRequests: unknown[]; testRunsInFlight: RunInFlight[] } | undefined;
  for (let round = 0; round < 400; round++) {
    q = (await post("/getQueue", queue)) as typeof q & object;
    if (q.enqueuedPullRequests.length === 0) return;
    if (q.testRunsInFlight.length === 0) {
      // A batch waits for its moment: time passes, and the coordinator's timekeeper (a real timer) sees it.
      clock.now += MINUTE;
      await sleep(100);
      continue;
    }
    clock.now += 12 * MINUTE;
    for (const run of q.testRunsInFlight) {
      await post("/reportTestRun", { testRunId: run.id, passed: !run.prNumbers.some(isBad) });
      today().runsReported += 1;
    }
  }
  throw new Error(`the queue never emptied: ${JSON.stringify(q)}`);
}
