/** "3 min ago", "in 2 min": short relative times for lists that update live. */
export function ago(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleString();
}

export const percent = (rate: number) => `${(rate * 100).toFixed(rate < 0.1 ? 1 : 0)}%`;

/** A state as a badge: the word is always there, the colour only repeats it. */
export function stateClass(state: string): string {
  return `badge badge-${state.toLowerCase().replace(/_/g, "-")}`;
}
