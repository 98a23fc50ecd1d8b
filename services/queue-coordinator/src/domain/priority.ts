import { InvalidArgumentError } from "@mainline/kit/errors/errors";

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

/** Accepts a level name in any case, an integer 0..255, or nothing (the default, medium). */
export function parsePriority(input: unknown, field = "priority"): Priority {
  if (input === undefined || input === null) return DEFAULT_PRIORITY;
  if (typeof input === "string") {
    const name = input.toLowerCase();
    if (name in PRIORITY_VALUES) {
      const known = name as PriorityName;
      return { value: PRIORITY_VALUES[known], name: known, usedDefault: false };
    }
    throw new InvalidArgumentError(field, 'must be "urgent", "high", "medium", "low" or an integer 0..255');
  }
  if (typeof input === "number" && Number.isInteger(input) && input >= 0 && input <= 255) {
    return { value: input, name: nameOfValue(input), usedDefault: false };
  }
  throw new InvalidArgumentError(field, 'must be "urgent", "high", "medium", "low" or an integer 0..255');
}
