import { resultKey } from "./bisection.js";
import type { Draft } from "./draft.js";
import { effectiveBisectionConcurrency } from "./queue-settings.js";
import type { TestRun } from "./test-run.js";

/**
 * A batch whose run failed its tests may have failed by a flake. The run built on it that started first tests it
 * once more, stacked under the PRs behind, and is nearer its end than a new run would be: it is kept going as the
 * batch's witness instead of being cancelled (the PRs behind restart without the batch as usual), and the batch's
 * search waits for it (bisection.ts). A pass clears the whole batch: its failure was a flake, and the search that
 * would have cleared it half by half costs no run. For a lone PR, a failure of a test its own run failed names it
 * without a run of its own (bisection-evidence.ts, witnessVerdict).
 *
 * A lone PR needs a second run anyway (a flake alone must never fail a good PR), so its witness is always worth
 * waiting for. A batch's search needs none when the batch holds a culprit, which is the likelier case: waiting
 * delays it, so a batch waits only for a witness that should end within WAIT_SHARE of a run's length, judged by
 * how long the failed run took. Only where the search tests on the target alone (ISOLATED), with batching on, and
 * while the search has a slot free (bisectionConcurrency).
 */
export function keepWitness(d: Draft, batchId: string): void {
  const batch = d.batch(batchId);
  const failure = batch?.failure;
  const settings = d.state.settings;
  if (batch === undefined || failure == null || failure.probe === true || failure.reason !== "TESTS_FAILED")
    return;
  if (!settings.batch || settings.bisectionMode !== "ISOLATED") return;
  // It joins the search's pool (scheduling.ts' runningCount would close an import cycle).
  const searching = d.allRuns().filter((r) => r.kind === "bisection" && r.status === "RUNNING").length;
  if (searching >= effectiveBisectionConcurrency(settings)) return;
  const first = firstBuiltOn(d, batch.prs);
  if (first === undefined) return;
  if (batch.prs.length > 1 && !endsSoon(d, failure, first)) return;
  const at = first.base.indexOf(batch.prs[0] as number);
  const witnessed = [...first.base.slice(at), ...first.prs];
  const run = d.editRun(first.id);
  run.kind = "bisection";
  run.batchId = batchId;
  run.base = first.base.slice(0, at);
  run.prs = witnessed;
  const key = resultKey(d.options.reuseBisectionResults, [], witnessed);
  run.comboKey = key;
  run.witness = true;
  run.witnessOf = [...batch.prs];
  d.editBatch(batchId).failure = { ...failure, witness: { runId: first.id, key } };
}

/**
 * Waiting for any witness at all cost parallel-3 a sixth on p50 over thirty seeds (a witness that started late in
 * another lane holds the search back for most of a run); a quarter and a half measured alike, a half saving a few
 * more runs (docs/planner-history.md, twentieth pass).
 */
const WAIT_SHARE = 0.5;

/**
 * The main run in flight that started first of those holding the batch as one block of their base, so that it tests
 * the batch on what was ahead of it, as the failed run did. One that also holds another failed batch is kept too:
 * measured, skipping it cost more than the waits it saved (docs/planner-history.md, twentieth pass).
 */
function firstBuiltOn(d: Draft, prs: readonly number[]): TestRun | undefined {
  let first: TestRun | undefined;
  for (const run of d.allRuns()) {
    if (run.kind !== "main" || run.status !== "RUNNING") continue;
    const at = run.base.indexOf(prs[0] as number);
    if (at < 0 || run.base.slice(at, at + prs.length).join(",") !== prs.join(",")) continue;
    if (first === undefined || run.startedAt < first.startedAt) first = run;
  }
  return first;
}

/**
 * Whether the witness should end within WAIT_SHARE of the time the batch's failed run took: it tests the same PRs
 * and more, so it takes about as long, counted from when it started.
 */
function endsSoon(d: Draft, failure: { runId: string; at: number }, witness: Readonly<TestRun>): boolean {
  const failed = d.run(failure.runId);
  if (failed === undefined) return false;
  const took = failure.at - failed.startedAt;
  return witness.startedAt + took - d.now <= WAIT_SHARE * took;
}
