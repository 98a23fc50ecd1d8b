import { expect } from "chai";
import { jsonCodec, retryDelayForDelivery } from "../../src/bus/index.js";

describe("retryDelayForDelivery", () => {
  it("takes the backoff entry for the delivery, repeating the last one", () => {
    const backoff = [100, 1_000, 10_000];
    expect([1, 2, 3, 4, 9].map((n) => retryDelayForDelivery(backoff, n, 5))).to.deep.equal([
      100, 1_000, 10_000, 10_000, 10_000,
    ]);
  });

  it("falls back when the consumer has no backoff list", () => {
    expect(retryDelayForDelivery([], 3, 750)).to.equal(750);
  });
});

describe("jsonCodec", () => {
  const codec = jsonCodec<{ queue: string; prs: number[] }>();

  it("round-trips a payload through bytes", () => {
    const bytes = codec.encode({ queue: "main", prs: [1, 2] }).finish();
    expect(bytes).to.be.instanceOf(Uint8Array);
    expect(codec.decode(bytes)).to.deep.equal({ queue: "main", prs: [1, 2] });
  });

  it("throws on bytes that are not JSON or not UTF-8", () => {
    expect(() => codec.decode(new TextEncoder().encode("{oops"))).to.throw(SyntaxError);
    expect(() => codec.decode(new Uint8Array([0xff, 0xfe]))).to.throw(TypeError);
  });
});
