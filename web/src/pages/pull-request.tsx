import { useRef, useState } from "preact/hooks";
import { api, parseRepoKey } from "../api.js";
import { ago, stateClass } from "../format.js";
import { useLive } from "../live.js";
import { queueHref } from "../router.js";
import { stackText } from "../stack.js";
import {
  priorityLabel,
  type Queue,
  type SubmittedPullRequest,
  type TestingDetails,
} from "@mainline/contract";
import { PriorityForm } from "./priority-form.js";
import { RunOutput } from "./run-output.js";
import { pullRequestRunIds, runIdOfOutput } from "../pr-runs.js";

interface Run {
  id: string;
  details: TestingDetails;
}

interface PullRequestView {
  pr: SubmittedPullRequest;
  /** Newest first, at most MAX_RUNS_SHOWN. */
  runs: Run[];
  /** Runs of the PR older than those listed. */
  olderRuns: number;
}

export function PullRequestPage({ repo, branch, pr }: { repo: string; branch: string; pr: number }) {
  const ref = parseRepoKey(repo);
  // A finished run never changes: read once, not again on every event.
  const finished = useRef(new Map<string, TestingDetails>());
  const [actionError, setActionError] = useState<string>();
  const load = async (): Promise<PullRequestView> => {
    const queue = { repo: ref, targetBranch: branch };
    const [submitted, q] = await Promise.all([
      api<SubmittedPullRequest>("/getSubmittedPullRequest", { ...queue, pr: { number: pr } }),
      api<Pick<Queue, "enqueuedPullRequests">>("/getQueue", queue).catch(() => undefined),
    ]);
    // The run under test while the PR is in the queue, then every run its history names (kept after it left).
    const current = q?.enqueuedPullRequests.find((p) => p.prNumber === pr)?.testRunId;
    const { ids, older } = pullRequestRunIds(submitted.history, current);
    const runs = await Promise.all(
      ids.map(async (id): Promise<Run | undefined> => {
        const known = finished.current.get(id);
        if (known) return { id, details: known };
        const details = await api<TestingDetails>("/getMergeQueueTestingDetails", {
          ...queue,
          testRunId: id,
        }).catch(() => undefined);
        if (details && details.status !== "IN_PROGRESS") finished.current.set(id, details);
        return details && { id, details };
      }),
    );
    return { pr: submitted, runs: runs.filter((r) => r !== undefined), olderRuns: older };
  };
  const { data, error, reload } = useLive(load, { repo, branch }, `${repo} ${branch} ${pr}`);
  const act = (path: string) =>
    api(path, { repo: ref, targetBranch: branch, pr: { number: pr } }).then(
      () => setActionError(undefined),
      (e: Error) => setActionError(e.message),
    );
  const p = data?.pr;
  const runs = data?.runs ?? [];
  const failedRun = runIdOfOutput(p?.failureDetailsUrl);
  const reason = p?.failureReason ?? p?.cancellationReason;
  return (
    <main id="main">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/">Queues</a> ›{" "}
        <a href={queueHref(repo, branch)}>
          {repo} {branch}
        </a>{" "}
        › #{pr}
      </nav>
      <h1>
        #{pr} {p?.prTitle}
      </h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {p && (
        <>
          <p class="summary">
            <span class={stateClass(p.state)} id="pr-state" aria-live="polite">
              {p.state}
            </span>{" "}
            since {ago(p.stateChangedAt)} · priority {p.priorityName || p.priorityValue} · by{" "}
            {p.prAuthor || "unknown"} · <code>{p.prSha.slice(0, 12)}</code>
          </p>
          {p.queuePosition !== undefined && (
            <p id="pr-estimate">
              Position {p.queuePosition} in the queue
              {p.estimatedMergeAt
                ? ` · estimated to merge at ${new Date(p.estimatedMergeAt).toLocaleTimeString()} (best case)`
                : " · no merge estimate until a run of this queue finishes"}
            </p>
          )}
          {p.stack && (
            <p id="pr-stack">
              Stacked: {stackText(p.stack, p.prNumber)}. The stack is tested as one block and lands bottom
              first.
            </p>
          )}
          {reason && (
            <p class="reason" id="pr-reason">
              {p.state === "FAILED" ? "Failed: " : "Cancelled: "}
              <strong>{reason}</strong>
            </p>
          )}
          <div class="actions">
            {p.isCurrentlySubmittedToQueue && (
              <>
                <button type="button" onClick={() => void act("/cancelPullRequest")}>
                  Cancel
                </button>
                <button type="button" onClick={() => void act("/restartTestsOnPullRequest")}>
                  Restart tests
                </button>
              </>
            )}
            {actionError && (
              <span role="alert" class="error">
                {actionError}
              </span>
            )}
          </div>
          {p.isCurrentlySubmittedToQueue && ref && (
            <PriorityForm repo={ref} branch={branch} pr={pr} current={p.priorityValue} onChanged={reload} />
          )}
          <section aria-labelledby="timeline-heading">
            <h2 id="timeline-heading">Timeline</h2>
            <ol class="timeline">
              {timeline(p).map((t, i) =>
                "reason" in t ? (
                  <li key={i}>
                    <span class={stateClass(t.to)}>{t.to}</span>{" "}
                    <time dateTime={t.at}>{new Date(t.at).toLocaleString()}</time> — {t.reason}
                    {t.detail && <> ({t.detail})</>}
                    {t.testRunId && (
                      <>
                        {" "}
                        (run <code>{t.testRunId}</code>)
                      </>
                    )}
                  </li>
                ) : (
                  <li key={i} class="priority-change">
                    <span class="badge">PRIORITY</span>{" "}
                    <time dateTime={t.at}>{new Date(t.at).toLocaleString()}</time> — {priorityLabel(t.from)} →{" "}
                    {priorityLabel(t.to)}
                    {t.by && ` by ${t.by}`}
                  </li>
                ),
              )}
            </ol>
          </section>
          <section aria-labelledby="run-heading">
            <h2 id="run-heading">Test runs</h2>
            {runs.length === 0 && (
              <p>No test run of this PR is known to this page yet; it appears when one starts.</p>
            )}
            <ol class="runs">
              {runs.map((run) => (
                <li key={run.id} data-run={run.id}>
                  <dl class="run-details">
                    <dt>Run</dt>
                    <dd>
                      <code>{run.id}</code>{" "}
                      <span class={stateClass(run.details.status)}>{run.details.status}</span>
                      {run.details.createdAt && (
                        <>
                          {" "}
                          started{" "}
                          <time dateTime={run.details.createdAt}>
                            {new Date(run.details.createdAt).toLocaleString()}
                          </time>
                        </>
                      )}
                    </dd>
                    <dt>Test branch</dt>
                    <dd>
                      <code>{run.details.testBranch}</code> at{" "}
                      <code>{run.details.testBranchSha.slice(0, 12)}</code>
                    </dd>
                    <dt>Tested with</dt>
                    <dd>
                      {run.details.testedPullRequests.map((t) => `#${t.prNumber}`).join(", ") || "—"}
                      {run.details.dependentPrs.length > 0 &&
                        ` (on top of ${run.details.dependentPrs.map((n) => `#${n}`).join(", ")})`}
                    </dd>
                    <dt>Output</dt>
                    <dd>
                      {p.failureDetailsUrl && failedRun === run.id ? (
                        <a href="#output-heading">Below</a>
                      ) : (
                        <RunLink run={run} />
                      )}
                    </dd>
                  </dl>
                </li>
              ))}
            </ol>
            {(data?.olderRuns ?? 0) > 0 && (
              <p>
                and {data?.olderRuns} earlier run{data?.olderRuns === 1 ? "" : "s"} (the page lists the latest{" "}
                {runs.length})
              </p>
            )}
          </section>
          {p.failureDetailsUrl && (
            <section aria-labelledby="output-heading">
              <h2 id="output-heading">Output of the failed run</h2>
              <RunOutput url={p.failureDetailsUrl} />
            </section>
          )}
        </>
      )}
    </main>
  );
}

/** State changes and priority changes in one list by time (a stable sort keeps each list's own order). */
function timeline(p: SubmittedPullRequest) {
  const changes = p.priorityChanges ?? [];
  return [...p.history, ...changes].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** A COMMAND run's status check links to its stored output; an EXTERNAL one to its CI's page. */
function RunLink({ run }: { run: { id: string; details: { statusChecks: { url: string }[] } } }) {
  const url =
    run.details.statusChecks.find((c) => c.url)?.url ?? `/v1/test-runs/${encodeURIComponent(run.id)}/output`;
  const isOutput = new URL(url, location.origin).pathname.startsWith("/v1/test-runs/");
  return (
    <a href={url} rel="noreferrer" target="_blank">
      {isOutput ? "The run's output" : "CI details"}
    </a>
  );
}
