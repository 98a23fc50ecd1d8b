import { expect } from "chai";
import {
  NO_MESSAGE_SUMMARY,
  mostCommonFailures,
  normalizeFailureMessage,
  recordFailure,
} from "../../../src/domain/failures/index.js";
import type { FailureGroup } from "../../../src/domain/failures/index.js";
import { parseJUnitXml } from "@mainline/junit";
import { readFileSync } from "node:fs";

describe("normalizeFailureMessage", () => {
  it("puts two occurrences that differ only in volatile details in one group", () => {
    const pairs: Array<[string, string]> = [
      [
        "deadline exceeded after 3000ms at /srv/app/orders/book.py:88",
        "deadline exceeded after 2950ms at /srv/app/orders/book.py:91",
      ],
      ["unknown currency XYZ at 0x7ffee4b2c9a0", "unknown currency XYZ at 0x7ffee4b2d010"],
      [
        "order 8f14e45f-ceea-467a-9af0-2d3b1c6a9e11 missing",
        "order 1b4e28ba-2fa1-11d2-883f-0016d3cca427 missing",
      ],
      ["started 2025-03-14T09:26:53.120Z, gave up", "started 2025-03-15T22:01:07Z, gave up"],
      ["request to http://localhost:38291/rates failed", "request to http://localhost:40112/rates failed"],
      ["database not reachable on 10.0.0.12:5432", "database not reachable on 10.0.3.7:5432"],
      [
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 not found",
        "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 not found",
      ],
      ["com.acme.Pool@1b6d3586 exhausted", "com.acme.Pool@4554617c exhausted"],
      ["C:\\agent\\_work\\1\\s\\Cart.cs(12,5): CS1002", "C:\\agent\\_work\\7\\s\\Cart.cs(12,5): CS1002"],
    ];
    for (const [a, b] of pairs) {
      expect(normalizeFailureMessage(a).groupKey, a).to.equal(normalizeFailureMessage(b).groupKey);
    }
  });

  it("keeps different failures apart", () => {
    expect(normalizeFailureMessage("connection refused").groupKey).to.not.equal(
      normalizeFailureMessage("connection reset").groupKey,
    );
    expect(normalizeFailureMessage("error CS1002").groupKey).to.not.equal(
      normalizeFailureMessage("error CS1003").groupKey,
    );
  });

  it("gives a readable summary with placeholders", () => {
    expect(
      normalizeFailureMessage("TimeoutError: deadline exceeded after 3000ms at /srv/app/orders/book.py:88")
        .summary,
    ).to.equal("TimeoutError: deadline exceeded after <n>ms at <path>:<n>");
    expect(normalizeFailureMessage("Object at 0x7fa3864d2d50 is  \n  closed").summary).to.equal(
      "Object at <address> is closed",
    );
  });

  it("shortens a long message and treats a missing one as its own group", () => {
    expect(normalizeFailureMessage("x".repeat(5000)).summary).to.have.length.at.most(200);
    expect(normalizeFailureMessage(undefined).summary).to.equal(NO_MESSAGE_SUMMARY);
    expect(normalizeFailureMessage("   ").groupKey).to.equal(normalizeFailureMessage(undefined).groupKey);
  });
});

describe("failure groups", () => {
  const T0 = Date.UTC(2025, 2, 10);

  it("counts occurrences per group with the last occurrence, most common first", () => {
    let groups: FailureGroup[] = [];
    groups = recordFailure(groups, "timeout after 100ms", T0);
    groups = recordFailure(groups, "connection refused", T0 + 1000);
    groups = recordFailure(groups, "timeout after 250ms", T0 + 2000);
    const top = mostCommonFailures(groups, 5);
    expect(top.map((g) => [g.summary, g.count, g.lastOccurrence])).to.deep.equal([
      ["timeout after <n>ms", 2, T0 + 2000],
      ["connection refused", 1, T0 + 1000],
    ]);
    expect(mostCommonFailures(groups, 1)).to.have.length(1);
    expect(mostCommonFailures(groups, 0)).to.deep.equal([]);
  });

  it("stays bounded, making room by dropping the rarest, oldest group", () => {
    let groups: FailureGroup[] = [];
    groups = recordFailure(groups, "frequent", T0, 3);
    groups = recordFailure(groups, "frequent", T0, 3);
    groups = recordFailure(groups, "old rare", T0, 3);
    groups = recordFailure(groups, "newer rare", T0 + 10, 3);
    groups = recordFailure(groups, "brand new", T0 + 20, 3);
    expect(groups.map((g) => g.summary)).to.have.members(["frequent", "newer rare", "brand new"]);
  });

  it("groups the failures of a real report", () => {
    const results = parseJUnitXml(
      readFileSync(
        new URL("../../../../../junit/test/fixtures/junit/gotestsum-reruns.xml", import.meta.url),
        "utf8",
      ),
    );
    let groups: FailureGroup[] = [];
    for (const result of results) {
      for (const attempt of result.attempts) {
        if (attempt.failure) groups = recordFailure(groups, attempt.failure.message, T0);
      }
    }
    // gotestsum writes "Failed" as every message: one group with all seven failed attempts.
    expect(mostCommonFailures(groups)).to.deep.equal([
      { key: normalizeFailureMessage("Failed").groupKey, summary: "Failed", count: 7, lastOccurrence: T0 },
    ]);
  });
});
