import type { z } from "zod";
import { InvalidArgumentError } from "@mainline/kit/errors/index";

/**
 * Parses input against its schema; the first problem becomes a 400 naming the field (dotted path, as the
 * caller wrote it) and the rule it broke.
 */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw new InvalidArgumentError("body", "is invalid");
  const field = issue.path.length === 0 ? "body" : issue.path.map(String).join(".");
  throw new InvalidArgumentError(field, ruleOf(issue));
}

function ruleOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined
        ? `is required (${issue.expected})`
        : `must be ${article(issue.expected)}`;
    case "invalid_union":
      // A field that takes several shapes (a PR number as an integer or as digits) and was left out.
      return issue.input === undefined ? "is required" : issue.message;
    case "unrecognized_keys":
      return `has unknown field(s) ${issue.keys.join(", ")}`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
