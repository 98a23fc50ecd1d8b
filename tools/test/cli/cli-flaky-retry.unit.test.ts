import { expect } from "chai";
import { afterRetry, firstAttempt, stopRetrying } from "@mainline/cli-src";

const attempt = (failed: string[], passed: string[]) => ({
  failed: new Map(failed.map((n) => [n, n])),
  passed: new Set(passed),
});

describe("mainline test --retries: the pure decision", () => {
  it("forgives a first-run failure only when a later attempt passed that same test", () => {
    let state = firstAttempt(attempt(["a", "b"], ["c"]));
    state = afterRetry(state, 2, attempt(["b"], ["a", "c"]));
    expect(state.flaky).to.deep.equal([{ name: "a", passedInAttempt: 2 }]);
    expect([...state.unresolved.keys()]).to.deep.equal(["b"]);
    // Absent from a later report is not a pass.
    state = afterRetry(state, 3, attempt([], ["a"]));
    expect([...state.unresolved.keys()]).to.deep.equal(["b"]);
  });

  it("never retries for a failure already forgiven (quarantined)", () => {
    const state = firstAttempt(attempt(["q", "b"], []), new Set(["q"]));
    expect([...state.unresolved.keys()]).to.deep.equal(["b"]);
  });

  it("stops when nothing is left, no retry is left, or too many tests failed to be a flake", () => {
    const first = attempt(["a", "b", "c"], []);
    const state = firstAttempt(first);
    expect(stopRetrying(state, 1, first, 10)).to.equal(undefined);
    expect(stopRetrying(state, 0, first, 10)).to.equal("no retries left");
    expect(stopRetrying(state, 1, first, 2)).to.match(/^3 tests failed, more than --max-failed-for-retry 2/);
    expect(stopRetrying(firstAttempt(attempt([], [])), 1, first, 10)).to.equal(
      "every failure passed on a retry",
    );
  });
});
