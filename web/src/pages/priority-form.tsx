import { useState } from "preact/hooks";
import { ActionStatus, type ActionOutcome } from "./action-status.js";
import { api, type RepoRef } from "../api.js";

const LEVELS = [
  { name: "urgent", value: 0 },
  { name: "high", value: 10 },
  { name: "medium", value: 100 },
  { name: "low", value: 200 },
] as const;

/** A priority as people say it: the level's name, else the number. */
export function priorityLabel(value: number): string {
  return LEVELS.find((l) => l.value === value)?.name ?? String(value);
}

/**
 * Changes a queued PR's priority (POST /v1/setPullRequestPriority). The page re-reads when the change's
 * lifecycle event arrives; `onChanged` re-reads at once as well, so the answer shows even if the stream lags.
 */
export function PriorityForm(props: {
  repo: RepoRef;
  branch: string;
  pr: number;
  current: number;
  onChanged: () => void;
}) {
  const named = LEVELS.some((l) => l.value === props.current);
  const [choice, setChoice] = useState<string>(named ? priorityLabel(props.current) : "medium");
  const [status, setStatus] = useState<ActionOutcome>({});
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api<{ priorityName: string; priorityValue: number }>("/setPullRequestPriority", {
        repo: props.repo,
        targetBranch: props.branch,
        pr: { number: props.pr },
        priority: choice,
      });
      setStatus({ done: `Priority is now ${answer.priorityName || answer.priorityValue}.` });
      props.onChanged();
    } catch (error) {
      setStatus({ error: (error as Error).message });
    }
  };
  return (
    <form class="priority-form" onSubmit={(e) => void submit(e)}>
      <label for="priority">Priority</label>
      <select id="priority" value={choice} onChange={(e) => setChoice((e.target as HTMLSelectElement).value)}>
        {LEVELS.map((l) => (
          <option key={l.name} value={l.name}>
            {l.name}
          </option>
        ))}
      </select>
      <button type="submit">Set priority</button>
      <ActionStatus outcome={status} />
    </form>
  );
}
