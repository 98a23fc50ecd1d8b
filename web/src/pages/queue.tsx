import type { EnqueuedPullRequest, Queue } from "@mainline/contract";
import { api, parseRepoKey } from "../api.js";
import { ago, stateClass } from "../format.js";
import { useLive } from "../live.js";
import { pullRequestHref, queueHref } from "../router.js";
import { QueueInsights } from "./queue-insights.js";
import { BisectionTree } from "./bisection-tree.js";
import { PendingFailures } from "./pending-failures.js";
import { laneLabels, waitingBatches } from "../batches.js";
import { QueueHistory } from "./queue-history.js";
import { QueueSettings } from "./queue-settings.js";

export type { EnqueuedPullRequest };

/** The PRs under test, one group per run in flight (a batch), in queue order: the lanes as they run now. */
function runsInFlight(prs: EnqueuedPullRequest[]): [string, EnqueuedPullRequest[]][] {
  const runs = new Map<string, EnqueuedPullRequest[]>();
  for (const pr of prs) if (pr.testRunId) runs.set(pr.testRunId, [...(runs.get(pr.testRunId) ?? []), pr]);
  return [...runs.entries()];
}

function PrRow({
  pr,
  position,
  repo,
  branch,
}: {
  pr: EnqueuedPullRequest;
  position: number;
  repo: string;
  branch: string;
}) {
  return (
    <li class="pr" data-pr={pr.prNumber} data-state={pr.state}>
      <span class="position" title="Position in the queue">
        {position}
      </span>
      <a href={pullRequestHref(repo, branch, pr.prNumber)}>
        #{pr.prNumber} {pr.prTitle || "(no title)"}
      </a>
      <span class={stateClass(pr.state)}>{pr.state}</span>
      <span class="meta">
        priority {pr.priorityName || pr.priorityValue}
        {pr.noBatch ? ", alone" : ""} · {pr.prAuthor || "unknown author"} · since {ago(pr.stateChangedAt)}
        {pr.estimatedMergeAt && (
          <>
            {" "}
            · merges by{" "}
            <time class="estimate" dateTime={pr.estimatedMergeAt}>
              {new Date(pr.estimatedMergeAt).toLocaleTimeString()}
            </time>{" "}
            at best
          </>
        )}
      </span>
    </li>
  );
}

/** The queue page's two views: what runs now, and how the queue went (issue 29). */
function QueueTabs({ repo, branch, view }: { repo: string; branch: string; view: "now" | "insights" }) {
  return (
    <nav class="tabs" aria-label="Queue views">
      <a href={queueHref(repo, branch)} aria-current={view === "now" ? "page" : undefined}>
        Now
      </a>
      <a href={queueHref(repo, branch, "insights")} aria-current={view === "insights" ? "page" : undefined}>
        Insights
      </a>
    </nav>
  );
}

export function QueuePage({ repo, branch, view }: { repo: string; branch: string; view?: "insights" }) {
  if (view === "insights")
    return (
      <main id="main">
        <nav class="crumbs" aria-label="Breadcrumb">
          <a href="/">Queues</a> › {repo}
        </nav>
        <h1>
          {repo} <span class="branch">{branch}</span>
        </h1>
        <QueueTabs repo={repo} branch={branch} view="insights" />
        <QueueInsights repo={repo} branch={branch} />
      </main>
    );
  return <QueueNow repo={repo} branch={branch} />;
}

function QueueNow({ repo, branch }: { repo: string; branch: string }) {
  const ref = parseRepoKey(repo);
  const { data, error, at, reload } = useLive(
    () => api<Queue>("/getQueue", { repo: ref, targetBranch: branch }),
    { repo, branch },
    `${repo} ${branch}`,
  );
  const prs = data?.enqueuedPullRequests ?? [];
  const runs = runsInFlight(prs);
  const { batches, unbatched } = waitingBatches(prs);
  // Lanes only mean something in PARALLEL mode: in SINGLE mode every batch waits for the one ahead.
  const lanes = data?.mode === "PARALLEL" ? laneLabels(prs) : new Map<string, string>();
  const laneOf = (pr: EnqueuedPullRequest | undefined) => (pr?.lane ? lanes.get(pr.lane) : undefined);
  const position = new Map(prs.map((p, i) => [p.id, i + 1]));
  return (
    <main id="main">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/">Queues</a> › {repo}
      </nav>
      <h1>
        {repo} <span class="branch">{branch}</span>
      </h1>
      <QueueTabs repo={repo} branch={branch} view="now" />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {data && (
        <p class="summary">
          <span class={stateClass(data.state)} id="queue-state">
            {data.state}
          </span>{" "}
          {data.mode.toLowerCase()} mode, {data.concurrency} at a time{data.batch ? ", batching" : ""} ·{" "}
          <span id="depth">{prs.length}</span> PRs ·{" "}
          <span aria-live="polite" class="updated">
            live, updated {at ? new Date(at).toLocaleTimeString() : "—"}
          </span>
        </p>
      )}
      {data?.targetBroken && (
        <p role="status" class="error" id="target-broken">
          No new runs start: {data.targetBroken.reason}. They start again when a run passes that test, the
          target moves, or the queue is resumed.
        </p>
      )}
      {data && prs.length === 0 && (
        <section class="empty">
          <h2>The queue is empty</h2>
          <p>
            Submit a pull request: <code>npx mainline submit &lt;pr number&gt;</code> (with{" "}
            <code>MAINLINE_REPO={repo}</code>), or comment <code>/svc merge</code> on it.
          </p>
        </section>
      )}
      {runs.length > 0 && (
        <section aria-labelledby="runs-heading">
          <h2 id="runs-heading">Runs in flight</h2>
          {runs.map(([runId, members], i) => (
            <div class="run" key={runId}>
              <h3>
                {laneOf(members[0]) ?? `Run ${i + 1}`}:{" "}
                {members.length > 1 ? `batch of ${members.length}` : "one PR"}{" "}
                <code class="run-id">{runId}</code>
              </h3>
              <ol class="prs">
                {members.map((pr) => (
                  <PrRow key={pr.id} pr={pr} position={position.get(pr.id)!} repo={repo} branch={branch} />
                ))}
              </ol>
            </div>
          ))}
        </section>
      )}
      {data && <BisectionTree runs={data.testRunsInFlight} />}
      {data && <PendingFailures prs={prs} runs={data.testRunsInFlight} repo={repo} branch={branch} />}
      {batches.length > 0 && (
        <section aria-labelledby="batches-heading">
          <h2 id="batches-heading">Waiting batches</h2>
          {batches.map((batch) => (
            <div class="run batch" key={batch.batchId} data-batch={batch.batchId}>
              <h3>
                {laneOf(batch.prs[0]) && `${laneOf(batch.prs[0])}: `}
                {batch.prs.length > 1 ? `batch of ${batch.prs.length}` : "one PR"},{" "}
                {batch.status === "FORMING" ? "forming (more PRs may join)" : "queued for a test slot"}{" "}
                <code class="run-id">batch {batch.batchId}</code>
              </h3>
              <ol class="prs">
                {batch.prs.map((pr) => (
                  <PrRow key={pr.id} pr={pr} position={position.get(pr.id)!} repo={repo} branch={branch} />
                ))}
              </ol>
            </div>
          ))}
        </section>
      )}
      {unbatched.length > 0 && (
        <section aria-labelledby="waiting-heading">
          <h2 id="waiting-heading">{batches.length > 0 ? "Other PRs waiting" : "Waiting"}</h2>
          <ol class="prs">
            {unbatched.map((pr) => (
              <PrRow key={pr.id} pr={pr} position={position.get(pr.id)!} repo={repo} branch={branch} />
            ))}
          </ol>
        </section>
      )}
      <QueueHistory repo={repo} branch={branch} {...(at ? { readAt: at } : {})} />
      {data && <QueueSettings repo={repo} branch={branch} settings={data} onSaved={reload} />}
    </main>
  );
}
