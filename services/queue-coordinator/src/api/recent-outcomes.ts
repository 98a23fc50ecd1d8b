import type { RecentOutcomes } from "@mainline/proto/queue";
import type { PullRequestEntry } from "../domain/index.js";

/** Finished entries counted by how they ended (the queue list's "merged / failed in the last hour"). */
export function recentOutcomes(finished: readonly { entry: PullRequestEntry }[]): RecentOutcomes {
  const count = (state: PullRequestEntry["state"]) => finished.filter((f) => f.entry.state === state).length;
  return { merged: count("MERGED"), failed: count("FAILED"), cancelled: count("CANCELLED") };
}
