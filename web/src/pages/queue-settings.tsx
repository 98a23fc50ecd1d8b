import { useState } from "preact/hooks";
import { ActionStatus, type ActionOutcome } from "./action-status.js";
import { api, parseRepoKey } from "../api.js";

/** The settings getQueue answers and updateQueue changes (services/gateway/src/api/schemas/merge-queue.ts). */
export type QueueSettingsView = Record<string, unknown> & { requiredStatuses?: string[] };

type Field =
  | { key: string; label: string; options: readonly string[] }
  | { key: string; label: string; min: number; max: number }
  | { key: string; label: string; flag: true }
  | { key: string; label: string; onOffFollow: true };

/** A test-aware setting (issue 26): null follows the repository's quarantining. */
const SWITCH_WORDS = [
  ["follow", null, "as quarantining"],
  ["on", true, "on"],
  ["off", false, "off"],
] as const;

/** What the form edits, with the API's ranges (RANGES in the gateway's limits.ts): out of range is a 400 anyway. */
const FIELDS: readonly Field[] = [
  { key: "mode", label: "Mode", options: ["SINGLE", "PARALLEL"] },
  { key: "concurrency", label: "Test runs at a time", min: 1, max: 1000 },
  { key: "batch", label: "Batching", flag: true },
  { key: "batchingMode", label: "Batch size", options: ["FIXED", "ADAPTIVE"] },
  { key: "batchingMinSize", label: "Smallest batch", min: 1, max: 1000 },
  { key: "batchingMaxWaitTimeMinutes", label: "Longest wait for a batch (min)", min: 1, max: 10_080 },
  { key: "bisectionConcurrency", label: "Bisection runs at a time", min: 1, max: 1000 },
  { key: "bisectionMode", label: "Bisection", options: ["ISOLATED", "STACKED"] },
  { key: "pendingFailureDepth", label: "Pending failure depth", min: 0, max: 1000 },
  { key: "testingTimeoutMinutes", label: "Testing timeout (min, 0: none)", min: 0, max: 10_080 },
  { key: "mergeMethod", label: "Merge method", options: ["MERGE_COMMIT", "SQUASH", "REBASE"] },
  { key: "canOptimisticallyMerge", label: "Optimistic merges", flag: true },
  { key: "optimizationMode", label: "Optimization", options: ["OFF", "BISECTION_SKIP_REDUNDANT_TESTS"] },
  { key: "commentsEnabled", label: "Comments on PRs", flag: true },
  { key: "commandsEnabled", label: "Comment commands", flag: true },
  { key: "statusCheckEnabled", label: "Status check", flag: true },
  { key: "ignoreQuarantinedTests", label: "Failures of quarantined tests ignored", onOffFollow: true },
  { key: "retryKnownFlakyTests", label: "Runs failing on known flaky tests retried once", onOffFollow: true },
  { key: "holdOnBrokenTarget", label: "A test broken on the target holds new runs", onOffFollow: true },
];

/**
 * The queue's settings, each editable; Save sends only what changed (updateQueue). Whether the token may change
 * them is the gateway's decision: a refusal shows as its message. Edits survive the page's live re-reads.
 */
export function QueueSettings(props: {
  repo: string;
  branch: string;
  settings: QueueSettingsView;
  onSaved: () => void;
}) {
  const [draft, setDraft] = useState<Record<string, unknown>>({});
  const [status, setStatus] = useState<ActionOutcome>({});
  const value = (key: string) => (key in draft ? draft[key] : props.settings[key]);
  const change = (key: string, v: unknown) => setDraft({ ...draft, [key]: v });
  const save = async (event: Event) => {
    event.preventDefault();
    if (Object.keys(draft).length === 0) return setStatus({ done: "Nothing changed." });
    try {
      await api("/updateQueue", { repo: parseRepoKey(props.repo), targetBranch: props.branch, ...draft });
      setDraft({});
      setStatus({ done: "Saved." });
      props.onSaved();
    } catch (error) {
      setStatus({ error: (error as Error).message });
    }
  };
  const statuses = props.settings.requiredStatuses ?? [];
  return (
    <section class="settings" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      {/* noValidate: the gateway judges every value, and its message says what is wrong with it. */}
      <form
        class="settings-form"
        aria-labelledby="settings-heading"
        noValidate
        onSubmit={(e) => void save(e)}
      >
        {FIELDS.map((f) => {
          const id = `setting-${f.key}`;
          const v = value(f.key);
          return (
            <div class="setting" key={f.key}>
              <label for={id}>{f.label}</label>
              {"options" in f ? (
                <select id={id} value={String(v)} onChange={(e) => change(f.key, e.currentTarget.value)}>
                  {f.options.map((o) => (
                    <option key={o} value={o}>
                      {o.toLowerCase().replace(/_/g, " ")}
                    </option>
                  ))}
                </select>
              ) : "onOffFollow" in f ? (
                <select
                  id={id}
                  value={SWITCH_WORDS.find(([, b]) => b === (v ?? null))?.[0] ?? "follow"}
                  onChange={(e) =>
                    change(f.key, SWITCH_WORDS.find(([w]) => w === e.currentTarget.value)?.[1] ?? null)
                  }
                >
                  {SWITCH_WORDS.map(([w, , label]) => (
                    <option key={w} value={w}>
                      {label}
                    </option>
                  ))}
                </select>
              ) : "flag" in f ? (
                <input
                  id={id}
                  type="checkbox"
                  checked={v === true}
                  onChange={(e) => change(f.key, e.currentTarget.checked)}
                />
              ) : (
                <input
                  id={id}
                  type="number"
                  min={f.min}
                  max={f.max}
                  value={String(v)}
                  onInput={(e) => change(f.key, e.currentTarget.valueAsNumber)}
                />
              )}
            </div>
          );
        })}
        <p class="meta">
          Required statuses: {statuses.length > 0 ? statuses.join(", ") : "none"} (set with the CLI or the
          API).
        </p>
        <div class="actions">
          <button type="submit">Save settings</button>
          <ActionStatus outcome={status} />
        </div>
      </form>
    </section>
  );
}
