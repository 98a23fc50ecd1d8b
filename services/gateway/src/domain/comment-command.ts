/**
 * The merge-queue commands people write in pull-request comments (`/svc merge`, `/svc cancel`). Pure: the text
 * of a comment in, what it asks for out. A comment that asks for something we cannot do gets a reply saying why,
 * never silence, because the author is waiting for the bot to react.
 */

import {
  parsePriorityText,
  PRIORITY_NAMES,
  PRIORITY_RANGE,
  PRIORITY_RULE,
  type PriorityName,
} from "@mainline/contract";

export const COMMAND_PREFIX = "/svc";

export type CommentCommand =
  /** The comment holds no command: people talk in PRs, and a bot that answers every comment is noise. */
  | { kind: "none" }
  | { kind: "merge"; noBatch: boolean; priority?: PriorityName | number }
  | { kind: "cancel" }
  /** A command we recognised as meant for us but cannot act on; `reply` says what is wrong and what works. */
  | { kind: "invalid"; reply: string };

export const COMMAND_USAGE = `Commands: \`/svc merge\` (options \`--no-batch\`, \`--priority=<${PRIORITY_NAMES.join("|")}|${PRIORITY_RANGE.min}-${PRIORITY_RANGE.max}>\`), \`/svc cancel\`.`;

/**
 * Finds the command in a comment. A command is a line that starts with `/svc` (after indentation); quoted lines
 * (`> /svc merge`, a reply quoting someone) and fenced code blocks are someone talking *about* a command, so they
 * are skipped. Only one command per comment is accepted: with two, which one wins would be a guess.
 */
export function parseCommentCommand(body: string): CommentCommand {
  const lines = commandLines(body);
  const [line, ...more] = lines;
  if (line === undefined) return { kind: "none" };
  if (more.length > 0)
    return invalid(`Only one command per comment is accepted; this comment has ${lines.length}.`);
  return parseCommandLine(line);
}

function commandLines(body: string): string[] {
  const found: string[] = [];
  let fence: string | null = null;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    const fenceMark = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fenceMark) {
      if (fence === null) fence = fenceMark;
      else if (fenceMark.startsWith(fence)) fence = null;
      continue;
    }
    if (fence !== null || line.startsWith(">")) continue;
    if (isCommandLine(line)) found.push(line);
  }
  return found;
}

/** `/svc` as a word of its own: `/svcmerge` or `/svc-bot` are not ours. */
function isCommandLine(line: string): boolean {
  if (!line.toLowerCase().startsWith(COMMAND_PREFIX)) return false;
  const next = line.charAt(COMMAND_PREFIX.length);
  return next === "" || /\s/.test(next);
}

function parseCommandLine(line: string): CommentCommand {
  const words = tokenize(line.slice(COMMAND_PREFIX.length));
  if (words === null) return invalid(`The command \`${line}\` has an unclosed quote. ${COMMAND_USAGE}`);
  const [name, ...args] = words;
  switch (name?.toLowerCase()) {
    case undefined:
      return invalid(`\`${COMMAND_PREFIX}\` needs a command. ${COMMAND_USAGE}`);
    case "merge":
      return parseMerge(args);
    case "cancel":
      return args.length === 0
        ? { kind: "cancel" }
        : invalid(`\`/svc cancel\` takes no options; got ${quoteList(args)}. ${COMMAND_USAGE}`);
    default:
      return invalid(`Unknown command \`/svc ${name}\`. ${COMMAND_USAGE}`);
  }
}

function parseMerge(args: string[]): CommentCommand {
  let noBatch = false;
  let priority: PriorityName | number | undefined;
  const seen = new Set<string>();
  for (const arg of args) {
    const [flag = "", value] = splitFlag(arg);
    const name = flag.toLowerCase();
    if (name !== "--no-batch" && name !== "--priority") {
      const what = flag.startsWith("-") ? "Unknown flag" : "Unexpected argument";
      return invalid(`${what} \`${arg}\` for \`/svc merge\`. ${COMMAND_USAGE}`);
    }
    if (seen.has(name)) return invalid(`\`${name}\` is given more than once.`);
    seen.add(name);
    if (name === "--no-batch") {
      if (value !== undefined) return invalid("`--no-batch` takes no value.");
      noBatch = true;
      continue;
    }
    if (value === undefined || value === "")
      return invalid(`\`--priority\` needs a value: \`--priority=<level>\` with level ${PRIORITY_RULE}.`);
    const level = parsePriorityText(value);
    if (level === undefined)
      return invalid(`\`--priority=${value}\` is not a priority; use ${PRIORITY_RULE}.`);
    priority = level;
  }
  return priority === undefined ? { kind: "merge", noBatch } : { kind: "merge", noBatch, priority };
}

/** `--flag=value` (the value may have been quoted, already unquoted by tokenize) or a bare `--flag`. */
function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  return eq === -1 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

/**
 * Splits on whitespace like a shell would, so `--priority="high"` and `--priority='high'` mean `--priority=high`
 * (people paste commands from docs that quote values). Null when a quote is left open.
 */
function tokenize(text: string): string[] | null {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: string | null = null;
  for (const ch of text) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote !== null) return null;
  if (inWord) words.push(current);
  return words;
}

function quoteList(args: string[]): string {
  return args.map((a) => `\`${a}\``).join(", ");
}

function invalid(reply: string): CommentCommand {
  return { kind: "invalid", reply };
}
