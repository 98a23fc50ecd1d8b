import type { PullRequestStack } from "@mainline/contract";

/** A PR's stack bottom to top, itself in brackets: "stack #11 ← [#12] ← #13" (issue 28). */
export function stackText(stack: PullRequestStack, pr: number): string {
  const chain = [...stack.below.map((n) => `#${n}`), `[#${pr}]`, ...stack.above.map((n) => `#${n}`)];
  return `stack ${chain.join(" ← ")}`;
}
