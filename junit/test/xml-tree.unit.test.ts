import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { XMLParser } from "fast-xml-parser";
import { buildXmlTree, MAX_DEPTH, XmlTreeError } from "../src/xml-tree.js";

const REPEATABLE = new Set([
  "testsuite",
  "testcase",
  "failure",
  "error",
  "skipped",
  "system-out",
  "system-err",
]);

// The parser the tree replaced, configured as it was: the reference for the tree's shape.
const reference = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  htmlEntities: true,
  processEntities: { enabled: true, maxEntityCount: 0, maxExpandedLength: 10_000_000 },
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (tagName) => REPEATABLE.has(tagName),
});

/** What a reader can tell apart: element text is read trimmed, a text-only element reads as its text. */
function readable(value: unknown): unknown {
  if (typeof value === "string") return { "#text": value.trim() };
  if (Array.isArray(value)) return value.map(readable);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, held] of Object.entries(value)) {
    if (key === "#text") {
      if (typeof held === "string" && held.trim() !== "") out[key] = held.trim();
    } else if (key.startsWith("@_")) {
      out[key] = held;
    } else {
      out[key] = readable(held);
    }
  }
  if (Object.keys(out).length === 1 && out["#text"] !== undefined) return out;
  return Object.keys(out).length === 0 ? { "#text": "" } : out;
}

function sameAsReference(xml: string): void {
  expect(readable(buildXmlTree(xml, REPEATABLE))).to.deep.equal(readable(reference.parse(xml)));
}

describe("buildXmlTree", () => {
  const fixtures = new URL("./fixtures/junit/", import.meta.url);
  const names = readdirSync(fixtures).filter((file) => file.endsWith(".xml"));
  it("finds the JUnit fixtures it compares", () => expect(names.length).to.be.greaterThan(10));
  for (const name of names) {
    it(`reads ${name} as fast-xml-parser did`, () => {
      sameAsReference(readFileSync(new URL(name, fixtures), "utf8"));
    });
  }

  it("decodes entities in text and attributes, keeps CDATA verbatim, skips comments and PIs", () => {
    const xml = [
      '<?xml version="1.0"?>',
      "<!-- a <comment> -->",
      '<testsuite name="a &amp; b &lt;c&gt; &quot;d&quot; &#233;&#x41;&nbsp;&euro;" file=\'single "quoted"\'>',
      '  <testcase name="x>y" classname="k"><failure message="m">line &amp; more<![CDATA[<raw> &amp;]]>tail</failure></testcase>',
      "  <?pi ignored?>",
      '  <testcase name="t2"/><testcase name="t3"></testcase>',
      '  <system-out>out</system-out><properties><property name="p" value="1"/><property name="q" value="2"/></properties>',
      "</testsuite>",
    ].join("\r\n");
    sameAsReference(xml);
    const tree = buildXmlTree(xml, REPEATABLE) as { testsuite: Record<string, unknown>[] };
    expect(tree.testsuite[0]?.["@_name"]).to.equal('a & b <c> "d" éA\u00a0€');
  });

  it("refuses nesting deeper than its bound instead of following it", () => {
    const deep = `${"<a>".repeat(MAX_DEPTH + 1)}${"</a>".repeat(MAX_DEPTH + 1)}`;
    expect(() => buildXmlTree(deep, REPEATABLE)).to.throw(XmlTreeError, /nested deeper/);
    expect(() =>
      buildXmlTree(`${"<a>".repeat(MAX_DEPTH)}${"</a>".repeat(MAX_DEPTH)}`, REPEATABLE),
    ).to.not.throw();
  });

  it("leaves out elements named like inherited properties, so the prototype stays out of reach", () => {
    const tree = buildXmlTree(
      '<testsuite><__proto__ polluted="yes"/><constructor/><testcase name="t"/></testsuite>',
      REPEATABLE,
    ) as { testsuite: Record<string, unknown>[] };
    const suite = tree.testsuite[0] ?? {};
    expect(Object.keys(suite)).to.deep.equal(["testcase"]);
    expect(Object.getPrototypeOf(suite)).to.equal(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).to.equal(undefined);
  });
});
