import { useState } from "preact/hooks";
import type { FailingTest, FailingTestsPage } from "@mainline/contract";
import { api, parseRepoKey } from "../api.js";
import { percent, stateClass } from "../format.js";
import { useLive } from "../live.js";
import { navigate } from "../router.js";
import { canonicalKey, RepositoryPicker, testedRepositories } from "./repository-picker.js";
import { RATE_SCOPE, STATUS_SCOPE } from "../status-scope.js";
import { TestInsights } from "./test-insights.js";

export type { FailingTest };

/** "yes" / "no", and who decided when an override did. */
export function quarantineText(t: Pick<FailingTest, "quarantined" | "quarantine_override">): string {
  const answer = t.quarantined ? "yes" : "no";
  if (t.quarantine_override === "ALWAYS_QUARANTINE") return `${answer} (always, by override)`;
  if (t.quarantine_override === "NEVER_QUARANTINE") return `${answer} (never, by override)`;
  return answer;
}

/** list-failing-tests over the last `hours` (at most 7 days), first 100 tests. */
export function failingTests(org: string, repo: string, hours: number): Promise<FailingTest[]> {
  const end = new Date();
  const start = new Date(end.getTime() - hours * 3_600_000);
  return api<FailingTestsPage>("/flaky-tests/list-failing-tests", {
    repo: parseRepoKey(repo),
    org_url_slug: org,
    start_time: start.toISOString(),
    end_time: end.toISOString(),
    page_query: { page_size: 100 },
  }).then((r) => r.tests);
}

/** The path part of a test's html_url: the page opens it in place. */
export const testPath = (t: FailingTest) => new URL(t.html_url).pathname;

export function FlakyTestsPage({ org, repo }: { org: string; repo?: string }) {
  const [choice, setChoice] = useState(repo ?? "");
  const [hours, setHours] = useState(168);
  const repositories = useLive(testedRepositories, undefined, "repositories");
  const key = repo === undefined ? undefined : canonicalKey(repo);
  // Only a repository the organisation has results for is read: any other would answer an empty list, which
  // reads as "nothing failed" rather than "no such repository".
  const known = key !== undefined && repositories.data?.includes(key) === true;
  const { data, error } = useLive(
    () => (known ? failingTests(org, key, hours) : Promise.resolve(undefined)),
    known ? { repo: key } : undefined,
    `${key ?? ""} ${hours} ${known}`,
  );
  return (
    <main id="main">
      <h1>Flaky tests</h1>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/flaky-tests?${new URLSearchParams({ repo: choice }).toString()}`);
        }}
      >
        <RepositoryPicker repositories={repositories.data} value={choice} onChange={setChoice} />
        <label for="window">Window</label>
        <select id="window" value={String(hours)} onChange={(e) => setHours(Number(e.currentTarget.value))}>
          <option value="6">last 6 hours</option>
          <option value="24">last 24 hours</option>
          <option value="72">last 3 days</option>
          <option value="168">last 7 days</option>
        </select>
        <button type="submit">Show</button>
      </form>
      {(error ?? repositories.error) && (
        <p role="alert" class="error">
          {error ?? repositories.error}
        </p>
      )}
      {repo === undefined && <p>Choose a repository to list the tests that failed in it.</p>}
      {repo !== undefined && key === undefined && (
        <p role="alert" class="error" id="repo-problem">
          “{repo}” is not a repository: write it as host/owner/name (github.com/acme/app), or choose one
          above.
        </p>
      )}
      {key !== undefined && repositories.data && !known && (
        <section class="empty" id="repo-problem">
          <h2>No test results for {key}</h2>
          <p>
            Organisation {org} has no test results from this repository. Choose one of its repositories above,
            or upload JUnit XML for it to <code>POST /v1/flaky-tests/upload</code>.
          </p>
        </section>
      )}
      {known && <TestInsights repo={key} />}
      {known && <h2 id="failing-heading">Failing tests</h2>}
      {data?.length === 0 && (
        <section class="empty">
          <h2>No failing test in this window</h2>
          <p>
            Results arrive from the merge queue's own runs and from CI uploads of JUnit XML to{" "}
            <code>POST /v1/flaky-tests/upload</code>.
          </p>
        </section>
      )}
      {data && data.length > 0 && (
        <p class="meta" id="status-scope">
          How to read it: {STATUS_SCOPE}; {RATE_SCOPE}.
        </p>
      )}
      {data && data.length > 0 && (
        <table class="tests" aria-describedby="status-scope">
          <thead>
            <tr>
              <th scope="col">Test</th>
              <th scope="col">Status</th>
              <th scope="col">Failure rate 7 d / 24 h</th>
              <th scope="col">Owners</th>
              <th scope="col">Quarantined</th>
            </tr>
          </thead>
          <tbody>
            {data.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  <a href={testPath(t)}>{t.name}</a>
                  {t.variant && <span class="meta"> ({t.variant})</span>}
                </th>
                <td data-label="Status">
                  <span class={stateClass(t.status.value)}>{t.status.value}</span>
                  <span class="meta"> {t.status.reason}</span>
                </td>
                <td data-label="Failure rate">
                  {percent(t.failure_rate_last_7d)} / {percent(t.failure_rate_last_24h)}
                </td>
                <td data-label="Owners">{t.codeowners.join(", ") || "—"}</td>
                <td data-label="Quarantined">{quarantineText(t)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
