import { readFileSync } from "node:fs";

/**
 * The commands of one ```sh block of the README, split into words as sh would for the simple lines the README
 * uses (quotes, a trailing `# comment`). Anything fancier (pipes, `;`, `&&`) is refused, so that the example
 * stays something a test can run word for word.
 */
export function readmeShellBlock(readmePath: string, heading: string): string[][] {
  const text = readFileSync(readmePath, "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`the README has no heading "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(start));
  if (!block) throw new Error(`no \`\`\`sh block under "${heading}"`);
  return block[1]!
    .split("\n")
    .map(shellWords)
    .filter((words) => words.length > 0);
}

export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unterminated ${c} in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === "$" && line[i + 1] === "(") {
      // A command substitution stays one word, unexpanded: the test decides what it stands for.
      const end = line.indexOf(")", i);
      if (end < 0) throw new Error(`unterminated $( in: ${line}`);
      word = (word ?? "") + line.slice(i, end + 1);
      i = end;
    } else if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) {
      break;
    } else if ("|;&<>`".includes(c)) {
      throw new Error(`the README line uses ${c}, which the example test does not run: ${line}`);
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
