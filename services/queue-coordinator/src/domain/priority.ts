import { PRIORITY_VALUES, type PriorityName } from "@mainline/kit/vocabulary/index";

export { PRIORITY_VALUES, type PriorityName };

export const URGENT_PRIORITY = PRIORITY_VALUES.urgent;

export interface Priority {
  value: number;
  /** The name when the value is one of the named levels, else null. */
  name: PriorityName | null;
  usedDefault: boolean;
}

export const DEFAULT_PRIORITY: Priority = {
  value: PRIORITY_VALUES.medium,
  name: "medium",
  usedDefault: true,
};

function nameOfValue(value: number): PriorityName | null {
  for (const [name, v] of Object.entries(PRIORITY_VALUES)) if (v === value) return name as PriorityName;
  return null;
}

/** A named level, as asked for (the command parser, api/command-parser.ts, read the name). */
export function namedPriority(name: PriorityName): Priority {
  return { value: PRIORITY_VALUES[name], name, usedDefault: false };
}

/** A level given as its value (0..255, checked by the command parser); named when it is one of the named levels. */
export function priorityOfValue(value: number): Priority {
  return { value, name: nameOfValue(value), usedDefault: false };
}
