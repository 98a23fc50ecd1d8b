import { priorityValueOf, type PriorityName } from "@mainline/contract";

/** A priority travels to the coordinator as its value, whether the caller named the level or gave the number. */
export function priorityOf(priority: PriorityName | number | undefined) {
  if (priority === undefined) return undefined;
  return { $case: "priorityValue" as const, value: priorityValueOf(priority) };
}
