/** What a form's action did: the gateway's refusal as an alert, or what changed, read out politely. */
export interface ActionOutcome {
  error?: string;
  done?: string;
}

export function ActionStatus({ outcome }: { outcome: ActionOutcome }) {
  return (
    <span
      aria-live="polite"
      class={outcome.error ? "error" : "note"}
      role={outcome.error ? "alert" : undefined}
    >
      {outcome.error ?? outcome.done ?? ""}
    </span>
  );
}
