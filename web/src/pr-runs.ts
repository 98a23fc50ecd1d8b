/** The most runs a PR page lists (each is one getMergeQueueTestingDetails read); older ones are counted. */
export const MAX_RUNS_SHOWN = 10;

interface HistoryStep {
  testRunId?: string;
}

/**
 * The test runs of a PR, newest first: the run it is in now (getQueue's testRunId), then every run its history
 * names (a run started, passed, failed or was bisected), each once. At most `max`; `older` counts the rest.
 */
export function pullRequestRunIds(
  history: readonly HistoryStep[],
  current: string | undefined,
  max = MAX_RUNS_SHOWN,
): { ids: string[]; older: number } {
  const ids: string[] = [];
  const add = (id: string | undefined) => {
    if (id && !ids.includes(id)) ids.push(id);
  };
  add(current);
  for (let i = history.length - 1; i >= 0; i--) add(history[i]!.testRunId);
  return { ids: ids.slice(0, max), older: Math.max(0, ids.length - max) };
}

/** The run id in a failureDetailsUrl that names this gateway's stored output (/v1/test-runs/{id}/output). */
export function runIdOfOutput(url: string | undefined): string | undefined {
  const match = url && /\/v1\/test-runs\/([^/]+)\/output$/.exec(new URL(url, "http://page.invalid").pathname);
  return match ? decodeURIComponent(match[1]!) : undefined;
}
