import { expect } from "chai";
import { EMPTY_EVIDENCE } from "../../src/domain/index.js";
import { TestIndex } from "../../src/app/test-index.js";
import type { TestDocument } from "../../src/store/documents.js";

function test(id: string, failureTimes: number[]): TestDocument {
  return {
    _id: id,
    org: "acme",
    repoKey: "github.com/acme/widgets",
    repo: { host: "github.com", owner: "acme", name: "widgets" },
    name: id,
    variant: "",
    status: { value: "healthy", reason: "no flaky or broken signal", timestamp: 0 },
    evidence: { ...EMPTY_EVIDENCE },
    buckets: [],
    failureGroups: [],
    failureTimes,
    firstSeenAt: 0,
    lastSeenAt: 0,
  };
}

describe("TestIndex", () => {
  const tests = [test("c", [10, 20, 30]), test("a", [5]), test("b", []), test("d", [40])];

  for (const [how, testIndex] of [
    ["loaded from a snapshot", () => new TestIndex("acme", "r", 7, tests)],
    [
      "built upload by upload",
      () => {
        const built = new TestIndex("acme", "r", 0);
        built.apply(1, [test("c", [10])], 1);
        built.apply(2, [test("a", [5]), test("b", [])], 2);
        built.apply(3, [test("c", [10, 20, 30]), test("d", [40])], 2);
        return built;
      },
    ],
  ] as const) {
    it(`lists the tests with a failure in [start, end), to the unit, in id order (${how})`, () => {
      const subject = testIndex();
      const listed = (start: number, end: number) => subject.failingTestIds(start, end);
      expect(listed(0, 100)).to.deep.equal(["a", "c", "d"]);
      expect(listed(10, 11)).to.deep.equal(["c"]);
      expect(listed(11, 20)).to.deep.equal([]); // between two failures of c, none inside
      expect(listed(15, 25)).to.deep.equal(["c"]);
      expect(listed(25, 30)).to.deep.equal([]);
      expect(listed(25, 31)).to.deep.equal(["c"]);
      expect(listed(0, 5)).to.deep.equal([]);
      expect(listed(5, 6)).to.deep.equal(["a"]);
      expect(listed(31, 41)).to.deep.equal(["d"]);
    });
  }

  it("makes an upload visible whole, and counts the journal since the last snapshot", () => {
    const testIndex = new TestIndex("acme", "r", 4, [test("a", [])]);
    expect(testIndex.seq).to.equal(4);
    testIndex.apply(5, [test("a", [7]), test("e", [8])], 2);
    expect(testIndex.seq).to.equal(5);
    expect(testIndex.size).to.equal(2);
    expect(testIndex.failingTestIds(0, 10)).to.deep.equal(["a", "e"]);
    expect(testIndex.journal).to.deep.equal({ entries: 1, results: 2 });
    testIndex.snapshotTaken(5);
    expect(testIndex.journal).to.deep.equal({ entries: 0, results: 0 });
  });
});
