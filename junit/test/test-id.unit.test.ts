import { expect } from "chai";
import { v5 as uuidV5, validate, version } from "uuid";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { TEST_ID_NAMESPACE, testId } from "../src/test-id.js";
import type { TestIdentity } from "../src/test-id.js";

const base: TestIdentity = {
  org: "acme",
  repo: { host: "github.com", owner: "acme", name: "pay" },
  file: "tests/test_orders.py",
  classname: "tests.test_orders.TestOrderBook",
  parent: "pytest",
  name: "test_cancel_order",
};

describe("testId", () => {
  it("is a version 5 UUID, the same for the same test every time", () => {
    const id = testId(base);
    expect(validate(id)).to.be.true;
    expect(version(id)).to.equal(5);
    expect(testId({ ...base })).to.equal(id);
  });

  it("is pinned: the namespace and encoding never change silently", () => {
    expect(TEST_ID_NAMESPACE).to.equal(uuidV5("mainline:test-id", "6ba7b811-9dad-11d1-80b4-00c04fd430c8"));
    expect(testId(base)).to.equal(
      uuidV5(
        JSON.stringify([
          "acme",
          "github.com",
          "acme",
          "pay",
          "tests/test_orders.py",
          "tests.test_orders.TestOrderBook",
          "pytest",
          "test_cancel_order",
        ]),
        TEST_ID_NAMESPACE,
      ),
    );
  });

  it("is the uuid package's version 5 for any name: unicode, quotes, long ones", () => {
    for (const name of ["ü ß 漢字 🙂", 'say "hi"\n\ttab', "x".repeat(5000), "a\u0000b"]) {
      const expected = uuidV5(
        JSON.stringify(["acme", "github.com", "acme", "pay", "", "", "", name]),
        TEST_ID_NAMESPACE,
      );
      expect(testId({ org: "acme", repo: base.repo, name })).to.equal(expected);
    }
  });

  it("makes a new test on a rename, a move or another suite", () => {
    const id = testId(base);
    expect(testId({ ...base, name: "test_cancel_open_order" })).to.not.equal(id);
    expect(testId({ ...base, file: "tests/test_book.py" })).to.not.equal(id);
    expect(testId({ ...base, classname: "tests.test_orders" })).to.not.equal(id);
    expect(testId({ ...base, parent: "orders" })).to.not.equal(id);
  });

  it("gives a test with an empty name (jest's test('')) a stable id of its own", () => {
    const empty = testId({ ...base, name: "" });
    expect(empty).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(testId({ ...base, name: "" })).to.equal(empty);
    expect(testId({ ...base, name: "", parent: "other suite" })).to.not.equal(empty);
  });

  it("keeps organisations and repositories apart", () => {
    const id = testId(base);
    expect(testId({ ...base, org: "globex" })).to.not.equal(id);
    expect(testId({ ...base, repo: { ...base.repo, name: "pay-v2" } })).to.not.equal(id);
    expect(testId({ ...base, repo: { ...base.repo, host: "gitlab.example.com" } })).to.not.equal(id);
  });

  it("keeps variants apart, and treats an empty variant as none", () => {
    const plain = testId(base);
    const linux = testId({ ...base, variant: "linux" });
    const mac = testId({ ...base, variant: "macos" });
    expect(new Set([plain, linux, mac]).size).to.equal(3);
    expect(testId({ ...base, variant: "" })).to.equal(plain);
  });

  it("does not let parts run into each other", () => {
    const a = testId({ ...base, classname: "a b", parent: "c" });
    const b = testId({ ...base, classname: "a", parent: "b c" });
    expect(a).to.not.equal(b);
  });

  it("reads the same file written with backslashes or ./ as one file, and host case-insensitively", () => {
    const id = testId(base);
    expect(testId({ ...base, file: ".\\tests\\test_orders.py" })).to.equal(id);
    expect(testId({ ...base, repo: { ...base.repo, host: "GitHub.com" } })).to.equal(id);
  });

  it("rejects a missing name, org or repository field, naming it", () => {
    const fieldOf = (identity: TestIdentity): string => {
      try {
        testId(identity);
      } catch (error) {
        expect(error).to.be.instanceOf(InvalidArgumentError);
        return (error as InvalidArgumentError).field;
      }
      throw new Error("expected a rejection");
    };
    expect(fieldOf({ ...base, name: undefined as unknown as string })).to.equal("name");
    expect(fieldOf({ ...base, org: "" })).to.equal("org_url_slug");
    expect(fieldOf({ ...base, repo: { ...base.repo, owner: "" } })).to.equal("repo.owner");
  });
});
