import { useState } from "preact/hooks";
import type { TestDetails } from "@mainline/contract";
import { api, parseRepoKey, type SessionInfo } from "../api.js";
import { percent, stateClass } from "../format.js";
import { useLive } from "../live.js";
import { RATE_SCOPE, STATUS_SCOPE } from "../status-scope.js";
import { quarantineText } from "./flaky-tests.js";
import { TestTrend } from "./test-trend.js";

/** A result context as people read it: "CI", "merge queue", "bisection". */
const contextLabel = (context: string): string =>
  context === "CI" ? context : context.toLowerCase().replaceAll("_", " ");

const OVERRIDES = [
  ["NONE", "Automatic (the repository's rules decide)"],
  ["ALWAYS_QUARANTINE", "Always quarantine"],
  ["NEVER_QUARANTINE", "Never quarantine"],
] as const;

/** One test (the page a test record's html_url names): its record and latest runs (get-test). */
export function TestPage({
  session,
  org,
  repo,
  testId,
}: {
  session: SessionInfo;
  org: string;
  repo: string;
  testId: string;
}) {
  // What the user picked; until then the radio shows the override the test has now (get-test).
  const [chosen, setChosen] = useState<string>();
  const [message, setMessage] = useState<string>();
  const {
    data: details,
    error,
    reload,
  } = useLive(
    () => api<TestDetails>("/flaky-tests/get-test", { repo: parseRepoKey(repo), test_id: testId }),
    { repo },
    `${repo} ${testId}`,
  );
  const data = details?.test;
  const override = chosen ?? data?.quarantine_override ?? "NONE";
  if (org !== session.org)
    return (
      <main id="main">
        <h1>Not your organisation's test</h1>
        <p role="alert">
          This test belongs to organisation <strong>{org}</strong>; you are signed in to{" "}
          <strong>{session.org}</strong>. Sign out and sign in with a token of {org}.
        </p>
      </main>
    );
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api("/flaky-tests/set-quarantine-override", {
        repo: parseRepoKey(repo),
        test_id: testId,
        override,
      });
      setMessage("Saved.");
      setChosen(undefined);
      reload();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return (
    <main id="main">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href={`/flaky-tests?${new URLSearchParams({ repo }).toString()}`}>Flaky tests of {repo}</a>
      </nav>
      <h1>{data ? data.name : "Test"}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {data && details && (
        <>
          <p class="summary">
            <span class={stateClass(data.status.value)} id="test-status">
              {data.status.value}
            </span>{" "}
            {data.status.reason} <span class="meta">({STATUS_SCOPE})</span> · quarantined:{" "}
            <strong id="test-quarantined">{quarantineText(data)}</strong>
          </p>
          <dl class="run-details">
            <dt>Failure rate</dt>
            <dd>
              {percent(data.failure_rate_last_7d)} over 7 days, {percent(data.failure_rate_last_24h)} over 24
              hours ({RATE_SCOPE}); {data.pull_requests_impacted_last_7d} PRs impacted (merge-queue batches
              included)
            </dd>
            <dt>Where</dt>
            <dd>{[data.file_path, data.classname].filter(Boolean).join(" · ") || "—"}</dd>
            <dt>Owners</dt>
            <dd>{data.codeowners.join(", ") || "none (set CODEOWNERS)"}</dd>
            <dt>Ticket</dt>
            <dd>{data.ticket ? <a href={data.ticket.html_url}>{data.ticket.html_url}</a> : "none linked"}</dd>
          </dl>
          <TestTrend repo={repo} testId={testId} />
          <h2 id="runs-heading">Latest runs</h2>
          {details.recent_runs.length === 0 ? (
            <p>
              No run of this test is recorded yet: run your tests through{" "}
              <code>npx mainline test --junit 'reports/*.xml' -- &lt;command&gt;</code>, which uploads their
              results.
            </p>
          ) : (
            <table class="recent-runs" aria-labelledby="runs-heading">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Where</th>
                  <th scope="col">Commit</th>
                </tr>
              </thead>
              <tbody>
                {details.recent_runs.map((r, i) => (
                  <tr key={i}>
                    <td data-label="When">
                      <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
                    </td>
                    <td data-label="Outcome">
                      <span class={stateClass(r.outcome)}>{r.outcome}</span>
                    </td>
                    <td data-label="Where">
                      {contextLabel(r.context)} · {r.branch || "—"}
                      {r.pr_number !== undefined && ` · PR #${r.pr_number}`}
                    </td>
                    <td data-label="Commit">
                      <code>{r.commit_sha.slice(0, 12) || "—"}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>Failure summaries</h2>
          {data.most_common_failures.length === 0 ? (
            <p>No failure recorded.</p>
          ) : (
            <ul>
              {data.most_common_failures.map((f) => (
                <li key={f.summary}>
                  <pre class="failure">{f.summary}</pre> {f.occurrence_count}×
                  {f.last_occurrence && (
                    <>
                      , last{" "}
                      <time dateTime={f.last_occurrence}>{new Date(f.last_occurrence).toLocaleString()}</time>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
          <form onSubmit={(e) => void save(e)}>
            <fieldset>
              <legend>Quarantine override</legend>
              {OVERRIDES.map(([value, label]) => (
                <label class="radio" key={value}>
                  <input
                    type="radio"
                    name="override"
                    value={value}
                    checked={override === value}
                    onChange={() => setChosen(value)}
                  />{" "}
                  {label}
                </label>
              ))}
            </fieldset>
            <button type="submit">Save override</button>
            {message && <p role="status">{message}</p>}
          </form>
        </>
      )}
    </main>
  );
}
