import type { FileChanges } from "./local-remote.js";

/**
 * The demo's repository: a tiny shop library with real tests (node's own test runner, which also writes a
 * JUnit report), and ten pull requests against it. Two of them break the tests and one edits the README line
 * an earlier one edits, so it cannot merge on top of it.
 */

/** The command Mainline runs in a worktree of each test commit. */
export const TEST_COMMAND =
  "node --test --test-reporter=spec --test-reporter-destination=stdout " +
  "--test-reporter=junit --test-reporter-destination=junit.xml";
export const JUNIT_GLOB = "junit.xml";

export type PlannedOutcome = "MERGED" | "TESTS_FAILED" | "MERGE_CONFLICT";

export interface DemoPullRequest {
  number: number;
  branch: string;
  title: string;
  changes: FileChanges;
  /** What should happen to it, so the demo can say whether Mainline did the right thing. */
  planned: PlannedOutcome;
}

const README = (tagline: string) => `# Demo shop\n\n${tagline}\n\nRun the tests with \`npm test\`.\n`;

export const BASE_FILES: FileChanges = {
  "package.json": `${JSON.stringify(
    { name: "demo-shop", private: true, type: "module", scripts: { test: TEST_COMMAND } },
    null,
    2,
  )}\n`,
  "README.md": README("A tiny shop library."),
  ".gitignore": "junit.xml\n",
  "src/cart.js":
    "export function total(items) {\n  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n}\n",
  "test/cart.test.js": testFile(
    "../src/cart.js",
    ["total"],
    [
      [
        "adds up prices times quantities",
        "total([{ price: 2, quantity: 3 }, { price: 5, quantity: 1 }])",
        "11",
      ],
      ["is zero for an empty cart", "total([])", "0"],
    ],
  ),
};

/** One module and its test file, the shape of most of the demo's pull requests. */
function feature(
  name: string,
  exported: string,
  body: string,
  cases: [string, string, string][],
): FileChanges {
  return {
    [`src/${name}.js`]: body,
    [`test/${name}.test.js`]: testFile(`../src/${name}.js`, [exported], cases),
  };
}

function testFile(module: string, names: string[], cases: [string, string, string][]): string {
  const lines = [
    'import test from "node:test";',
    'import assert from "node:assert/strict";',
    `import { ${names.join(", ")} } from "${module}";`,
    "",
    ...cases.map(
      ([title, actual, expected]) =>
        `test(${JSON.stringify(title)}, () => assert.equal(${actual}, ${expected}));`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

export const DEMO_PULL_REQUESTS: readonly DemoPullRequest[] = [
  {
    number: 1,
    branch: "feature/discounts",
    title: "Add percentage discounts",
    planned: "MERGED",
    changes: feature(
      "discount",
      "discount",
      "export const discount = (amount, percent) => Math.round(amount * (100 - percent)) / 100;\n",
      [["takes 10% off", "discount(50, 10)", "45"]],
    ),
  },
  {
    number: 2,
    branch: "docs/tagline",
    title: "Say what the shop library is for",
    planned: "MERGED",
    changes: { "README.md": README("A tiny shop library: carts, prices and discounts.") },
  },
  {
    number: 3,
    branch: "feature/tax",
    title: "Add VAT",
    planned: "MERGED",
    changes: feature(
      "tax",
      "withVat",
      "export const withVat = (amount) => Math.round(amount * 120) / 100;\n",
      [["adds 20% VAT", "withVat(10)", "12"]],
    ),
  },
  {
    number: 4,
    branch: "feature/shipping",
    title: "Charge shipping per started kilo",
    planned: "TESTS_FAILED",
    // The bug: floor instead of ceil, so a parcel of 2.5 kg is charged for 2.
    changes: feature("shipping", "shipping", "export const shipping = (kilos) => 4 * Math.floor(kilos);\n", [
      ["charges every started kilo", "shipping(2.5)", "12"],
    ]),
  },
  {
    number: 5,
    branch: "feature/format",
    title: "Format prices",
    planned: "MERGED",
    changes: feature(
      "format",
      "formatPrice",
      "export const formatPrice = (amount) => `€${amount.toFixed(2)}`;\n",
      [["shows two decimals", "formatPrice(3)", '"€3.00"']],
    ),
  },
  {
    number: 6,
    branch: "docs/tagline-2",
    title: "Reword the README tagline",
    planned: "MERGE_CONFLICT",
    // The same line as PR 2, written differently: it cannot apply once PR 2 is ahead of it.
    changes: { "README.md": README("The shop library of the Mainline demo.") },
  },
  {
    number: 7,
    branch: "feature/coupons",
    title: "Accept coupon codes",
    planned: "MERGED",
    changes: feature(
      "coupon",
      "couponValue",
      "const COUPONS = { WELCOME5: 5, SPRING10: 10 };\nexport const couponValue = (code) => COUPONS[code] ?? 0;\n",
      [
        ["knows WELCOME5", 'couponValue("WELCOME5")', "5"],
        ["ignores unknown codes", 'couponValue("NOPE")', "0"],
      ],
    ),
  },
  {
    number: 8,
    branch: "feature/gift",
    title: "Free gift above 100",
    planned: "TESTS_FAILED",
    // The bug: > instead of >=, so exactly 100 gets no gift.
    changes: feature("gift", "freeGift", "export const freeGift = (amount) => amount > 100;\n", [
      ["gives a gift from 100 on", "freeGift(100)", "true"],
    ]),
  },
  {
    number: 9,
    branch: "feature/stock",
    title: "Track stock levels",
    planned: "MERGED",
    changes: feature(
      "stock",
      "inStock",
      "export const inStock = (stock, sku, quantity = 1) => (stock[sku] ?? 0) >= quantity;\n",
      [
        ["has what is stocked", 'inStock({ mug: 2 }, "mug", 2)', "true"],
        ["lacks what is not", 'inStock({}, "mug")', "false"],
      ],
    ),
  },
  {
    number: 10,
    branch: "feature/currency",
    title: "Convert currencies",
    planned: "MERGED",
    changes: feature(
      "currency",
      "convert",
      "const RATES = { EUR: 1, USD: 1.1 };\nexport const convert = (amount, to) => Math.round(amount * RATES[to] * 100) / 100;\n",
      [["converts to USD", 'convert(10, "USD")', "11"]],
    ),
  },
];
