import { RuleTester, type Rule } from "eslint";
import tseslint from "typescript-eslint";

// The rule is plain JS beside the contract (eslint.config.js loads it as it is); imported here by its URL.
const { vocabularyInContract, contractWordLists } = (await import(
  new URL("../../../contract/lint/vocabulary-in-contract.mjs", import.meta.url).href
)) as {
  vocabularyInContract: Rule.RuleModule;
  contractWordLists: () => Record<string, string[]>;
};

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

describe("ESLint keeps the vocabulary in the contract package (contract/vocabulary-in-contract)", () => {
  it("reads its words from the contract's own lists", () => {
    const lists = contractWordLists();
    if (!lists.RUN_OUTCOMES?.includes("PASSED") || !lists.PRIORITY_NAMES?.includes("urgent"))
      throw new Error(`the contract's word lists were not found: ${Object.keys(lists).join(", ")}`);
  });

  tester.run("vocabulary-in-contract", vocabularyInContract, {
    valid: [
      // Counters and sentences keyed by the words are no second spelling of them.
      "const summary = { passed: 0, failed: 0 };",
      'const says = { PASSED: "the tests passed", FAILED: "a test failed" };',
      "const runs = { main: r.mainRuns, bisection: r.bisectionRuns };",
      // One word is a value, not a table; unrelated keys are not the vocabulary.
      'const o = { PASSED: "success", other: "x" };',
      'const env = { HOST: "a", PORT: "b" };',
      // Through the contract's codecs.
      "const state = statusCheckStateOf(verdict);",
      "const context = ResultContext[upperCaseWord(run.context)];",
      "const lower = text.toLowerCase();",
    ],
    invalid: [
      {
        code: 'const STATUS_STATES = { PASSED: "success", FAILED: "failure", TIMED_OUT: "error" };',
        errors: [{ messageId: "table" }],
      },
      {
        code: 'const OUTCOMES = { [TestRunOutcome.PASSED]: "PASSED", [TestRunOutcome.ERROR]: "BUILD_FAILED", [TestRunOutcome.FAILED]: "FAILED" };',
        errors: [{ messageId: "table" }],
      },
      {
        code: "const kinds = { main: TestRunKind.MAIN, bisection: TestRunKind.BISECTION };",
        errors: [{ messageId: "table" }],
      },
      {
        code: "const outcome = TestRunOutcome[verdict.outcome.toUpperCase() as Uppercase<RunOutcome>];",
        errors: [{ messageId: "caseFlip" }],
      },
      {
        code: "const word = wordOf(value)?.toLowerCase() as Lowercase<Word> | undefined;",
        errors: [{ messageId: "caseFlip" }],
      },
    ],
  });
});
