/** The named priority levels of the HTTP API (compat-notes "/submitPullRequest"), most urgent first. */
export const PRIORITY_NAMES = ["urgent", "high", "medium", "low"] as const;

export type PriorityName = (typeof PRIORITY_NAMES)[number];

/** Lower is more urgent; only `urgent` may interrupt running tests. */
export const PRIORITY_VALUES: Readonly<Record<PriorityName, number>> = {
  urgent: 0,
  high: 10,
  medium: 100,
  low: 200,
};

/** How an error message names the accepted priorities. */
export const PRIORITY_RULE = "urgent, high, medium, low, or an integer from 0 to 255";
