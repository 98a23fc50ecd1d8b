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

/** A priority given as a number: 0..255 (the contracts carry it in a byte's range). */
export const PRIORITY_RANGE = { min: 0, max: 255 } as const;

export const DEFAULT_PRIORITY_NAME: PriorityName = "medium";

/** How an error message names the accepted priorities. */
export const PRIORITY_RULE = `${PRIORITY_NAMES.join(", ")}, or an integer from ${PRIORITY_RANGE.min} to ${PRIORITY_RANGE.max}`;

/** A level's name in any case ("High"), else undefined. */
export function priorityNameOf(text: string): PriorityName | undefined {
  const lower = text.toLowerCase();
  return PRIORITY_NAMES.find((name) => name === lower);
}

/** The level a value is, when it is one of the named levels. */
export function priorityNameOfValue(value: number): PriorityName | undefined {
  return PRIORITY_NAMES.find((name) => PRIORITY_VALUES[name] === value);
}

export function isPriorityValue(value: unknown): value is number {
  return (
    typeof value === "number" &&
    Number.isInteger(value) &&
    value >= PRIORITY_RANGE.min &&
    value <= PRIORITY_RANGE.max
  );
}

/** A priority as a wire value: a level's name in any case, or an integer 0..255. Undefined when it is neither. */
export function readPriority(input: unknown): PriorityName | number | undefined {
  if (isPriorityValue(input)) return input;
  return typeof input === "string" ? priorityNameOf(input) : undefined;
}

/** A priority typed as text (a CLI argument, a PR comment's flag): a level's name, or 0..255 in decimal digits. */
export function parsePriorityText(text: string): PriorityName | number | undefined {
  const named = priorityNameOf(text);
  if (named !== undefined) return named;
  return /^\d{1,3}$/.test(text) && isPriorityValue(Number(text)) ? Number(text) : undefined;
}

/** The number a priority travels as between services (one way for every call). */
export function priorityValueOf(priority: PriorityName | number): number {
  return typeof priority === "number" ? priority : PRIORITY_VALUES[priority];
}

/** A priority as people say it: the level's name, else the number. */
export function priorityLabel(value: number): string {
  return priorityNameOfValue(value) ?? String(value);
}
