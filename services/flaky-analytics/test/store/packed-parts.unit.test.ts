import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { InternalError } from "@mainline/kit/errors/index";
import { packItems, unpackItems } from "../../src/store/packed-parts.js";

describe("packed parts", () => {
  it("gives back the same items in order, in one part when they are small", () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ id: `test-${i}`, outcomes: ["passed"], n: i }));
    const parts = packItems(items);
    expect(parts).to.have.length(1);
    expect(unpackItems(parts, "t")).to.deep.equal(items);
  });

  it("splits items that do not compress into parts small enough for a 1 MB NATS message", () => {
    const items = Array.from({ length: 3000 }, () => ({ message: randomBytes(700).toString("base64") }));
    const parts = packItems(items);
    expect(parts.length).to.be.greaterThan(1);
    for (const part of parts) expect(part.length).to.be.at.most(900_000);
    expect(unpackItems(parts, "t")).to.deep.equal(items);
  });

  it("packs an empty list into one part, and refuses a damaged part naming it", () => {
    const parts = packItems([]);
    expect(unpackItems(parts, "t")).to.deep.equal([]);
    expect(() => unpackItems(["not base64 deflate"], "journal entry 3")).to.throw(
      InternalError,
      /journal entry 3: part 0 cannot be read/,
    );
  });
});
