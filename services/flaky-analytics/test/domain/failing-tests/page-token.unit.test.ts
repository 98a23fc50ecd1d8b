import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { decodePageToken, encodePageToken, pageInfo } from "../../../src/domain/failing-tests/index.js";
import type { PageScope } from "../../../src/domain/failing-tests/index.js";

const KEY = "a-32-byte-secret-for-page-tokens";
const scope: PageScope = {
  org: "acme",
  repo: { host: "github.com", owner: "acme", name: "pay" },
  startTime: Date.UTC(2025, 2, 1),
  endTime: Date.UTC(2025, 2, 8),
};

function rejection(token: string, inScope: PageScope = scope, key = KEY): InvalidArgumentError {
  try {
    decodePageToken(token, inScope, key);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).field).to.equal("page_query.page_token");
    return error as InvalidArgumentError;
  }
  throw new Error("expected the token to be rejected");
}

describe("page tokens", () => {
  it("round-trip the page index within the same listing", () => {
    for (const index of [0, 1, 7, 9999]) {
      expect(decodePageToken(encodePageToken(scope, index, KEY), scope, KEY)).to.equal(index);
    }
  });

  it("are opaque: the organisation and repository cannot be read from them", () => {
    const token = encodePageToken(scope, 3, KEY);
    expect(token).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const decoded = token
      .split(".")
      .map((part) => Buffer.from(part, "base64url").toString("latin1"))
      .join("");
    expect(decoded).to.not.contain("acme").and.not.contain("pay");
  });

  it("cannot be replayed against another organisation, repository or window", () => {
    const token = encodePageToken(scope, 2, KEY);
    const others: PageScope[] = [
      { ...scope, org: "globex" },
      { ...scope, repo: { ...scope.repo, name: "pay-v2" } },
      { ...scope, repo: { ...scope.repo, owner: "globex" } },
      { ...scope, repo: { ...scope.repo, host: "gitlab.com" } },
      { ...scope, startTime: scope.startTime + 1 },
      { ...scope, endTime: scope.endTime - 1000 },
    ];
    for (const other of others) {
      expect(rejection(token, other).rule).to.equal(
        "was not issued for this organisation, repository and time range",
      );
    }
  });

  it("cannot be forged: a changed page index or another key fails", () => {
    const [, mac] = encodePageToken(scope, 2, KEY).split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ v: 1, p: 50 })).toString("base64url");
    rejection(`${forgedPayload}.${mac}`);
    rejection(encodePageToken(scope, 2, "another-key"));
  });

  it("rejects garbage with the field named", () => {
    expect(rejection("not-a-token").rule).to.equal("is not a page token");
    expect(rejection("a.b.c").rule).to.equal("is not a page token");
    expect(rejection("x".repeat(10_000)).rule).to.equal("is too long to be a page token");
    rejection(".");
  });

  it("refuses to mint a token for a negative or fractional page", () => {
    expect(() => encodePageToken(scope, -1, KEY)).to.throw(RangeError);
    expect(() => encodePageToken(scope, 1.5, KEY)).to.throw(RangeError);
  });
});

describe("pageInfo", () => {
  it("fills all six fields, with tokens that lead to the right pages", () => {
    const page = pageInfo(scope, { totalRows: 45, pageSize: 20, pageIndex: 1 }, KEY);
    expect(page).to.include({ total_rows: 45, total_pages: 3, page_index: 1 });
    expect(decodePageToken(page.next_page_token, scope, KEY)).to.equal(2);
    expect(decodePageToken(page.prev_page_token, scope, KEY)).to.equal(0);
    expect(decodePageToken(page.last_page_token, scope, KEY)).to.equal(2);
  });

  it("gives empty tokens where there is no page to go to", () => {
    expect(pageInfo(scope, { totalRows: 0, pageSize: 10, pageIndex: 0 }, KEY)).to.deep.equal({
      total_rows: 0,
      total_pages: 0,
      next_page_token: "",
      prev_page_token: "",
      last_page_token: "",
      page_index: 0,
    });
    const first = pageInfo(scope, { totalRows: 30, pageSize: 10, pageIndex: 0 }, KEY);
    expect(first.prev_page_token).to.equal("");
    const last = pageInfo(scope, { totalRows: 30, pageSize: 10, pageIndex: 2 }, KEY);
    expect(last.next_page_token).to.equal("");
    expect(decodePageToken(last.last_page_token, scope, KEY)).to.equal(2);
  });
});
