import { useState } from "preact/hooks";
import { api, parseRepoKey } from "../api.js";
import { ago, stateClass } from "../format.js";
import { useLive } from "../live.js";
import { pullRequestHref } from "../router.js";

/** The gateway's listFinishedPullRequests answer (services/gateway/src/api/schemas/queue-history.ts). */
export interface FinishedPullRequest {
  id: string;
  state: "MERGED" | "FAILED" | "CANCELLED";
  endedAt: string;
  prNumber: number;
  prTitle: string;
  prAuthor: string;
  headBranch: string;
  submittedAt: string;
  reason: string;
}

interface FinishedPage {
  pullRequests: FinishedPullRequest[];
  total: number;
  limit: number;
  offset: number;
}

const PAGE = 10;
/** The API's bound (QUEUE_HISTORY_PAGE.maxSearchLength): the field stops there rather than earn a 400. */
const MAX_SEARCH = 255;
/** The API's deepest page (QUEUE_HISTORY_PAGE.maxOffset). */
const MAX_OFFSET = 10_000;
const STATES = ["MERGED", "FAILED", "CANCELLED"] as const;

/**
 * A queue's history: the PRs that left it, the latest first, filtered, searched and paged by the API. It reads
 * again whenever the queue page did (`readAt`): a PR leaves the history's queue only by a change the page's own
 * event stream reports, and a second stream per page would only cost a connection.
 */
export function QueueHistory({ repo, branch, readAt }: { repo: string; branch: string; readAt?: number }) {
  const [state, setState] = useState("");
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  const [offset, setOffset] = useState(0);
  const { data, error } = useLive(
    () =>
      api<FinishedPage>("/listFinishedPullRequests", {
        repo: parseRepoKey(repo),
        targetBranch: branch,
        ...(state ? { states: [state] } : {}),
        ...(search ? { search } : {}),
        limit: PAGE,
        offset,
      }),
    undefined,
    `${repo} ${branch} ${state} ${search} ${offset} ${readAt ?? ""}`,
  );
  const filtered = state !== "" || search !== "";
  const last = data ? Math.min(data.offset + data.pullRequests.length, data.total) : 0;
  return (
    <section aria-labelledby="history-heading" class="history">
      <h2 id="history-heading">Recent pull requests</h2>
      <form
        class="inline"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(typed.trim());
          setOffset(0);
        }}
      >
        <label for="history-state">Ended</label>
        <select
          id="history-state"
          value={state}
          onChange={(e) => {
            setState(e.currentTarget.value);
            setOffset(0);
          }}
        >
          <option value="">any way</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s.toLowerCase()}
            </option>
          ))}
        </select>
        <label for="history-search">Number, branch or author</label>
        <input
          id="history-search"
          type="search"
          maxLength={MAX_SEARCH}
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {data?.total === 0 && (
        <p class="empty">
          {filtered
            ? "No pull request that left this queue matches."
            : "No pull request has left this queue yet: merged, failed and cancelled ones show here."}
        </p>
      )}
      {data && data.pullRequests.length > 0 && (
        <ol class="prs" aria-label="Pull requests that left the queue, the latest first">
          {data.pullRequests.map((pr) => (
            <li class="pr-ended" key={pr.id} data-pr={pr.prNumber} data-state={pr.state}>
              <a href={pullRequestHref(repo, branch, pr.prNumber)}>
                #{pr.prNumber} {pr.prTitle || "(no title)"}
              </a>
              <span class={stateClass(pr.state)}>{pr.state}</span>
              <span class="meta">
                {pr.state !== "MERGED" && pr.reason ? `${pr.reason} · ` : ""}
                {pr.prAuthor || "unknown author"}
                {pr.headBranch && (
                  <>
                    {" "}
                    · <span class="branch">{pr.headBranch}</span>
                  </>
                )}{" "}
                · <time dateTime={pr.endedAt}>{ago(pr.endedAt)}</time>
              </span>
            </li>
          ))}
        </ol>
      )}
      {data && data.total > PAGE && (
        <nav class="actions" aria-label="History pages">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Newer
          </button>
          <span class="meta" aria-live="polite">
            {data.offset + 1}–{last} of {data.total}
          </span>
          <button
            type="button"
            disabled={last >= data.total || offset + PAGE > MAX_OFFSET}
            onClick={() => setOffset(offset + PAGE)}
          >
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
