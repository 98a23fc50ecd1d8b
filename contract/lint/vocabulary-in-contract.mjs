// An ESLint rule: the vocabulary lives in the contract package, once. Outside it, a table that translates the
// vocabulary's words into other spellings (`{ PASSED: "success", FAILED: "failure" }`,
// `{ [TestRunOutcome.PASSED]: "PASSED" }`), or a case-flip cast (`.toUpperCase() as ...`), re-spells a word the
// contract already defines with its codecs. (Counters keyed by the words, `{ passed: 0, failed: 0 }`, and text
// per word are no second spelling.) The words are read from the contract's own sources (each
// `export const NAME = [...] as const` list), so the rule follows the contract and never lists them a second time.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SOURCES = fileURLToPath(new URL("../src", import.meta.url));

/** Every word list of the contract: `export const NAME = ["A", "B", ...] as const`. */
export function contractWordLists(dir = SOURCES) {
  const lists = {};
  for (const entry of readdirSync(dir, { recursive: true })) {
    if (!String(entry).endsWith(".ts")) continue;
    const text = readFileSync(path.join(dir, String(entry)), "utf8");
    for (const [, name, body] of text.matchAll(/export const (\w+) = \[([^\]]*)\] as const/g)) {
      const words = [...body.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
      if (words.length >= 2) lists[name] = words;
    }
  }
  return lists;
}

const CASE_FLIPS = new Set(["toUpperCase", "toLowerCase"]);

/** A value that spells a word: an enum member (`TestRunOutcome.PASSED`) or a one-word string ("success"). */
function isSpelling(node) {
  if (node.type === "MemberExpression" && !node.computed)
    return node.object.type === "Identifier" && /^[A-Z]/.test(node.object.name);
  return node.type === "Literal" && typeof node.value === "string" && /^[A-Za-z_.]+$/.test(node.value);
}

/** The word a key or a union member spells: `PASSED`, `"PASSED"`, `[TestRunOutcome.PASSED]`. */
function wordOf(node) {
  if (!node) return undefined;
  if (node.type === "Identifier") return node.name;
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  if (node.type === "MemberExpression" && !node.computed) return node.property.name;
  if (node.type === "TSLiteralType") return wordOf(node.literal);
  return undefined;
}

export const vocabularyInContract = {
  meta: {
    type: "problem",
    docs: { description: "each word of the vocabulary is defined once, in @mainline/contract" },
    schema: [
      {
        type: "object",
        properties: {
          lists: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      caseFlip:
        "a case flip cast (.{{method}}() as ...) re-spells a word of the vocabulary; use the contract's codec (@mainline/contract)",
      table:
        "a hand-written table keyed by the vocabulary ({{words}} of {{list}}); the contract (@mainline/contract) holds each word once, with its codecs",
    },
  },
  create(context) {
    const lists = Object.entries(context.options[0]?.lists ?? contractWordLists()).map(([name, words]) => [
      name,
      new Set(words),
    ]);
    /** The contract list two or more of these words come from, with those words. */
    const sharedList = (words) => {
      for (const [name, set] of lists) {
        const hits = [...new Set(words.filter((w) => w !== undefined && set.has(w)))];
        if (hits.length >= 2) return { list: name, words: hits.join(", ") };
      }
      return undefined;
    };
    return {
      TSAsExpression(node) {
        const call =
          node.expression.type === "ChainExpression" ? node.expression.expression : node.expression;
        if (
          call.type === "CallExpression" &&
          call.callee.type === "MemberExpression" &&
          !call.callee.computed &&
          CASE_FLIPS.has(call.callee.property.name)
        ) {
          context.report({ node, messageId: "caseFlip", data: { method: call.callee.property.name } });
        }
      },
      ObjectExpression(node) {
        const entries = node.properties.filter((p) => p.type === "Property");
        // A translation: its values are words too (string literals or enum members), not counts or prose.
        const spellings = entries.filter((p) => isSpelling(p.value));
        if (spellings.length < 2) return;
        const found = sharedList(spellings.map((p) => wordOf(p.key)));
        if (found) context.report({ node, messageId: "table", data: found });
      },
    };
  },
};
