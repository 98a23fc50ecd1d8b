import { expect } from "chai";
import { parseCommentCommand, type CommentCommand } from "../../src/domain/comment-command.js";

const reply = (command: CommentCommand): string => (command.kind === "invalid" ? command.reply : "");

describe("comment commands: parsing /svc lines out of a comment", () => {
  const accepted: [string, string, CommentCommand][] = [
    ["a bare merge", "/svc merge", { kind: "merge", noBatch: false }],
    ["merge without batching", "/svc merge --no-batch", { kind: "merge", noBatch: true }],
    [
      "merge with a named priority",
      "/svc merge --priority=urgent",
      { kind: "merge", noBatch: false, priority: "urgent" },
    ],
    [
      "merge with a numeric priority and no batching, in any order",
      "/svc merge --priority=42 --no-batch",
      { kind: "merge", noBatch: true, priority: 42 },
    ],
    [
      "the lowest numeric priority",
      "/svc merge --priority=0",
      { kind: "merge", noBatch: false, priority: 0 },
    ],
    [
      "the highest numeric priority",
      "/svc merge --priority=255",
      { kind: "merge", noBatch: false, priority: 255 },
    ],
    [
      "a double-quoted priority value",
      '/svc merge --priority="high"',
      { kind: "merge", noBatch: false, priority: "high" },
    ],
    [
      "a single-quoted whole flag",
      "/svc merge '--priority=low'",
      { kind: "merge", noBatch: false, priority: "low" },
    ],
    [
      "upper case",
      "/SVC MERGE --NO-BATCH --Priority=HIGH",
      { kind: "merge", noBatch: true, priority: "high" },
    ],
    ["extra whitespace and tabs", "   /svc \t merge    --no-batch   ", { kind: "merge", noBatch: true }],
    ["cancel", "/svc cancel", { kind: "cancel" }],
    [
      "a command among several lines of text",
      "Thanks for the review!\r\n\r\n/svc merge --priority=high\nI will watch the queue.",
      { kind: "merge", noBatch: false, priority: "high" },
    ],
  ];
  for (const [what, body, expected] of accepted) {
    it(`reads ${what}`, () => {
      expect(parseCommentCommand(body)).to.deep.equal(expected);
    });
  }

  const ignored: [string, string][] = [
    ["an ordinary comment", "Looks good to me."],
    ["an empty comment", ""],
    ["a command in the middle of a sentence", "Could you /svc merge this when green?"],
    ["a different bot's prefix", "/svcbot merge"],
    ["a quoted command (a reply quoting someone)", "> /svc merge\nWhy merge this now?"],
    ["a command inside a fenced code block", "To merge, write:\n```\n/svc merge --no-batch\n```\n"],
    ["a command inside a tilde fence", "~~~~\n/svc cancel\n~~~~"],
  ];
  for (const [what, body] of ignored) {
    it(`ignores ${what}`, () => {
      expect(parseCommentCommand(body)).to.deep.equal({ kind: "none" });
    });
  }

  it("still reads a command after a closed code block", () => {
    expect(parseCommentCommand("```\n/svc merge\n```\n/svc cancel")).to.deep.equal({ kind: "cancel" });
  });

  const refused: [string, string, RegExp][] = [
    ["an unknown flag", "/svc merge --fast", /^Unknown flag `--fast` for `\/svc merge`\. Commands: /],
    ["a single-dash flag", "/svc merge -n", /^Unknown flag `-n`/],
    ["a stray word after merge", "/svc merge please", /^Unexpected argument `please`/],
    [
      "an unknown priority name",
      "/svc merge --priority=asap",
      /^`--priority=asap` is not a priority; use urgent, high/,
    ],
    ["a priority above 255", "/svc merge --priority=256", /^`--priority=256` is not a priority/],
    ["a negative priority", "/svc merge --priority=-1", /^`--priority=-1` is not a priority/],
    ["a fractional priority", "/svc merge --priority=1.5", /^`--priority=1\.5` is not a priority/],
    ["a priority without a value", "/svc merge --priority", /^`--priority` needs a value/],
    ["an empty priority value", "/svc merge --priority=", /^`--priority` needs a value/],
    [
      "a priority given twice",
      "/svc merge --priority=high --priority=low",
      /^`--priority` is given more than once/,
    ],
    ["a value on --no-batch", "/svc merge --no-batch=false", /^`--no-batch` takes no value/],
    ["options on cancel", "/svc cancel --no-batch", /^`\/svc cancel` takes no options; got `--no-batch`/],
    ["an unknown command", "/svc deploy", /^Unknown command `\/svc deploy`\. Commands: /],
    ["the prefix alone", "/svc", /^`\/svc` needs a command/],
    ["an unclosed quote", '/svc merge --priority="high', /unclosed quote/],
    [
      "two commands in one comment",
      "/svc merge\n/svc cancel",
      /^Only one command per comment is accepted; this comment has 2/,
    ],
  ];
  for (const [what, body, message] of refused) {
    it(`answers ${what} with a reply saying what is wrong`, () => {
      const command = parseCommentCommand(body);
      expect(command.kind).to.equal("invalid");
      expect(reply(command)).to.match(message);
    });
  }

  it("names every valid form in the reply to an unknown flag", () => {
    const text = reply(parseCommentCommand("/svc merge --now"));
    for (const form of [
      "/svc merge",
      "--no-batch",
      "--priority=<urgent|high|medium|low|0-255>",
      "/svc cancel",
    ]) {
      expect(text).to.contain(form);
    }
  });
});
