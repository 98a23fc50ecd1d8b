import { expect } from "chai";

/** The page's own module; imported by a path tsc does not follow (web/ is its own project, with the DOM types). */
const STACK = "../../../web/src/stack.js";

type StackText = (stack: { below: number[]; above: number[] }, pr: number) => string;

describe("web page: a PR's stack (issue 28)", () => {
  it("reads bottom to top with the PR itself in brackets, on the queue's rows and the PR page", async () => {
    const { stackText } = (await import(STACK)) as { stackText: StackText };
    expect(stackText({ below: [11], above: [13, 14] }, 12)).to.equal("stack #11 ← [#12] ← #13 ← #14");
    expect(stackText({ below: [], above: [12] }, 11)).to.equal("stack [#11] ← #12");
    expect(stackText({ below: [11, 12], above: [] }, 13)).to.equal("stack #11 ← #12 ← [#13]");
  });
});
