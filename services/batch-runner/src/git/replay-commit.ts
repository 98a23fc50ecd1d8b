import type { Git } from "./git.js";

// Signatures would no longer match the rewritten object, so they are dropped with their
// continuation lines; every other header (author, committer, encoding) is kept byte for byte.
const DROPPED_HEADERS = /^(tree|parent|gpgsig|gpgsig-sha256|mergetag) /;

/**
 * Writes a copy of `sha` with new parents and tree, keeping its author, committer (dates
 * included) and message. The copy depends only on its inputs, so two replicas replaying the same
 * commit onto the same parent write the same sha; unchanged parents and tree return `sha` itself.
 */
export async function replayCommit(
  git: Git,
  sha: string,
  parents: readonly string[],
  tree: string,
): Promise<string> {
  const raw = (await git.run(["cat-file", "commit", sha])).stdout;
  const end = raw.indexOf("\n\n");
  const headerLines = (end === -1 ? raw.replace(/\n$/, "") : raw.slice(0, end)).split("\n");
  const message = end === -1 ? "" : raw.slice(end + 2);
  const kept: string[] = [];
  let dropping = false;
  for (const line of headerLines) {
    if (line.startsWith(" ")) {
      if (!dropping) kept.push(line);
      continue;
    }
    dropping = DROPPED_HEADERS.test(line);
    if (!dropping) kept.push(line);
  }
  const originalTree = headerLines.find((l) => l.startsWith("tree "))?.slice(5);
  const originalParents = headerLines.filter((l) => l.startsWith("parent ")).map((l) => l.slice(7));
  if (originalTree === tree && originalParents.join(" ") === parents.join(" ")) return sha;
  const header = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), ...kept].join("\n");
  return git.text(["hash-object", "-t", "commit", "-w", "--stdin"], { input: `${header}\n\n${message}` });
}
