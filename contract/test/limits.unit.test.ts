import { expect } from "chai";
import {
  integerRangeRule,
  isIntegerIn,
  QUEUE_ADDRESS_MAX_BYTES,
  LIMITS,
  utf8ByteLength,
} from "../src/index.js";

describe("contract: limits", () => {
  it("counts UTF-8 bytes as Node's Buffer does", () => {
    for (const text of ["", "main", "é", "€uro", "𝄞 clef", "日本語ブランチ"])
      expect(utf8ByteLength(text), text).to.equal(Buffer.byteLength(text, "utf8"));
  });

  it("bounds a queue's address by the API's own limits", () => {
    expect(QUEUE_ADDRESS_MAX_BYTES).to.deep.equal({
      org: 64,
      host: 259,
      owner: 255,
      name: 255,
      targetBranch: 255,
    });
    expect(LIMITS.branch).to.equal(QUEUE_ADDRESS_MAX_BYTES.targetBranch);
  });

  it("checks an integer range and names it", () => {
    expect(isIntegerIn(1000, [1, 1000])).to.equal(true);
    for (const bad of [0, 1001, 1.5, Number.MAX_SAFE_INTEGER, "5"])
      expect(isIntegerIn(bad, [1, 1000])).to.equal(false);
    expect(integerRangeRule([1, 1000])).to.equal("must be an integer from 1 to 1000");
  });
});
