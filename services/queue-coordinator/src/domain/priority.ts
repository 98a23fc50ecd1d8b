import {
  DEFAULT_PRIORITY_NAME,
  PRIORITY_VALUES,
  priorityNameOfValue,
  type PriorityName,
} from "@mainline/contract";

export { PRIORITY_VALUES, type PriorityName };

export const URGENT_PRIORITY = PRIORITY_VALUES.urgent;

export interface Priority {
  value: number;
  /** The name when the value is one of the named levels, else null. */
  name: PriorityName | null;
  usedDefault: boolean;
}

export const DEFAULT_PRIORITY: Priority = {
  value: PRIORITY_VALUES[DEFAULT_PRIORITY_NAME],
  name: DEFAULT_PRIORITY_NAME,
  usedDefault: true,
};

/** A named level, as asked for (the command parser, api/command-parser.ts, read the name). */
export function namedPriority(name: PriorityName): Priority {
  return { value: PRIORITY_VALUES[name], name, usedDefault: false };
}

/** A level given as its value (0..255, checked by the command parser); named when it is one of the named levels. */
export function priorityOfValue(value: number): Priority {
  return { value, name: priorityNameOfValue(value) ?? null, usedDefault: false };
}
