import { useState } from "preact/hooks";
import { ActionStatus, type ActionOutcome } from "./action-status.js";
import {
  DEFAULT_PRIORITY_NAME,
  PRIORITY_NAMES,
  priorityNameOfValue,
  type PriorityChanged,
} from "@mainline/contract";
import { api, type RepoRef } from "../api.js";

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
  const [choice, setChoice] = useState<string>(priorityNameOfValue(props.current) ?? DEFAULT_PRIORITY_NAME);
  const [status, setStatus] = useState<ActionOutcome>({});
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api<PriorityChanged>("/setPullRequestPriority", {
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
        {PRIORITY_NAMES.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <button type="submit">Set priority</button>
      <ActionStatus outcome={status} />
    </form>
  );
}
