/**
 * The gRPC wire's enums are ts-proto string enums: a value is its word. UNSPECIFIED (nothing said), or
 * UNRECOGNIZED (a newer publisher's word this build does not know), is none.
 */
export type WireWord<E extends string> = Exclude<E, "UNSPECIFIED" | "UNRECOGNIZED">;

export function wireWord<E extends string>(value: E): WireWord<E> | undefined {
  return value === "UNSPECIFIED" || value === "UNRECOGNIZED" ? undefined : (value as WireWord<E>);
}

/**
 * Where the API writes a word in lower case (test statuses, result contexts in flaky-analytics' domain, metric
 * label values) and the wire in upper case, the word is the same: these are the one place the case flips.
 */
export const upperCaseWord = <W extends string>(word: W): Uppercase<W> => word.toUpperCase() as Uppercase<W>;
export const lowerCaseWord = <W extends string>(word: W): Lowercase<W> => word.toLowerCase() as Lowercase<W>;
