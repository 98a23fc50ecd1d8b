import { compileCodeownersPattern } from "./codeowners-pattern.js";

export interface CodeownersRule {
  pattern: string;
  /** Empty when the line deliberately leaves the matched files without owners. */
  owners: string[];
  /** 1-based line in the file. */
  line: number;
}

/** A line GitHub would skip, with why. */
export interface CodeownersProblem {
  line: number;
  message: string;
}

interface CompiledRule extends CodeownersRule {
  matcher: RegExp;
}

const USER_OR_TEAM = /^@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * A parsed CODEOWNERS file. As on GitHub, a line with bad syntax is skipped (and reported in
 * `problems`) rather than failing the whole file, and the last matching pattern wins.
 */
export class Codeowners {
  private constructor(
    private readonly compiled: readonly CompiledRule[],
    readonly problems: readonly CodeownersProblem[],
  ) {}

  static parse(text: string): Codeowners {
    const rules: CompiledRule[] = [];
    const problems: CodeownersProblem[] = [];
    text.split(/\r?\n/).forEach((raw, index) => {
      const line = index + 1;
      const tokens = tokenize(raw);
      const pattern = tokens[0];
      if (pattern === undefined) return;
      const owners = tokens.slice(1);
      const problem = patternProblem(pattern) ?? ownersProblem(owners);
      if (problem !== undefined) {
        problems.push({ line, message: problem });
        return;
      }
      rules.push({ pattern, owners, line, matcher: compileCodeownersPattern(pattern) });
    });
    return new Codeowners(rules, problems);
  }

  get rules(): CodeownersRule[] {
    return this.compiled.map(({ pattern, owners, line }) => ({ pattern, owners: [...owners], line }));
  }

  /** The owners of a repository path: those of the last rule that matches, or none. */
  ownersOf(filePath: string): string[] {
    const path = filePath
      .replaceAll("\\", "/")
      .replace(/^(?:\.\/)+/, "")
      .replace(/^\/+/, "");
    if (path === "") return [];
    for (let i = this.compiled.length - 1; i >= 0; i--) {
      const rule = this.compiled[i] as CompiledRule;
      if (rule.matcher.test(path)) return [...rule.owners];
    }
    return [];
  }
}

/**
 * Splits a line into the pattern and owners. `#` starts a comment at the start of a line or
 * after whitespace; `\#` and `\ ` keep a hash or a space inside a pattern.
 */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let atTokenStart = true;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (ch === "\\" && (line[i + 1] === "#" || line[i + 1] === " ")) {
      current += line[i + 1] === "#" ? "#" : "\\ ";
      atTokenStart = false;
      i++;
    } else if (ch === "#" && atTokenStart) {
      break;
    } else if (ch === " " || ch === "\t") {
      if (current !== "") tokens.push(current);
      current = "";
      atTokenStart = true;
    } else {
      current += ch;
      atTokenStart = false;
    }
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

function patternProblem(pattern: string): string | undefined {
  if (pattern.startsWith("!")) return `negated pattern "${pattern}" is not supported in CODEOWNERS`;
  if (/(?<!\\)\[/.test(pattern)) return `character range in "${pattern}" is not supported in CODEOWNERS`;
  if (pattern.includes("***")) return `pattern "${pattern}" has three consecutive asterisks`;
  return undefined;
}

function ownersProblem(owners: readonly string[]): string | undefined {
  const bad = owners.find((owner) => !USER_OR_TEAM.test(owner) && !EMAIL.test(owner));
  return bad === undefined ? undefined : `"${bad}" is not a @user, an @org/team or an email address`;
}
