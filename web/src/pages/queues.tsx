import { useState } from "preact/hooks";
import { type QueueList, type QueueSummary, type RequestableQueueState } from "@mainline/contract";
import { api, repoKey } from "../api.js";
import { stateClass } from "../format.js";
import { useLive } from "../live.js";
import { queueHref } from "../router.js";

/** Pause, resume, drain: one updateQueue call each; the list re-reads on the queue event that follows. */
function QueueActions({ q }: { q: QueueSummary }) {
  const [error, setError] = useState<string>();
  const set = (state: RequestableQueueState) =>
    api("/updateQueue", { repo: q.repo, targetBranch: q.branch, state }).then(
      () => setError(undefined),
      (e: Error) => setError(e.message),
    );
  const label = `${repoKey(q.repo)} ${q.branch}`;
  return (
    <div class="actions">
      {q.state !== "RUNNING" && (
        <button type="button" onClick={() => void set("RUNNING")} aria-label={`Resume ${label}`}>
          Resume
        </button>
      )}
      {q.state === "RUNNING" && (
        <button type="button" onClick={() => void set("PAUSED")} aria-label={`Pause ${label}`}>
          Pause
        </button>
      )}
      {q.state !== "DRAINING" && (
        <button type="button" onClick={() => void set("DRAINING")} aria-label={`Drain ${label}`}>
          Drain
        </button>
      )}
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </div>
  );
}

export function QueuesPage() {
  const { data, error } = useLive(() => api<QueueList>("/listQueues").then((r) => r.queues), {}, "queues");
  return (
    <main id="main">
      <h1>Queues</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {data === undefined && !error && <p class="loading">Loading queues…</p>}
      {data?.length === 0 && (
        <section class="empty">
          <h2>No queue yet</h2>
          <p>Make one for a repository's branch with the CLI, then submit pull requests to it:</p>
          <pre>
            <code>
              {"export MAINLINE_URL=" +
                location.origin +
                " MAINLINE_TOKEN=<your token> MAINLINE_REPO=github.com/acme/app\n" +
                "npx mainline queue create --batch --concurrency 2\nnpx mainline submit 42"}
            </code>
          </pre>
        </section>
      )}
      {data && data.length > 0 && (
        <table class="queues">
          <caption class="visually-hidden">Queues of your organisation, updated live</caption>
          <thead>
            <tr>
              <th scope="col">Repository and branch</th>
              <th scope="col">State</th>
              <th scope="col">Mode</th>
              <th scope="col">Depth</th>
              <th scope="col">Runs in flight</th>
              <th scope="col">Last hour</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {data.map((q) => (
              <tr key={`${repoKey(q.repo)} ${q.branch}`}>
                <th scope="row">
                  <a href={queueHref(repoKey(q.repo), q.branch)}>
                    {repoKey(q.repo)} <span class="branch">{q.branch}</span>
                  </a>
                </th>
                <td data-label="State">
                  <span class={stateClass(q.state)}>{q.state}</span>
                </td>
                <td data-label="Mode">
                  {q.mode.toLowerCase()}
                  {q.batch ? ", batching" : ""}, {q.concurrency} at a time
                </td>
                <td data-label="Depth">
                  {q.depth}
                  {q.notReady > 0 ? ` (+${q.notReady} not ready)` : ""}
                </td>
                <td data-label="Runs in flight">{q.testRunsInFlight}</td>
                <td data-label="Last hour" class="last-hour">
                  {q.lastHour.merged} merged, {q.lastHour.failed} failed
                  {q.lastHour.cancelled > 0 ? `, ${q.lastHour.cancelled} cancelled` : ""}
                </td>
                <td data-label="Actions">
                  <QueueActions q={q} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
