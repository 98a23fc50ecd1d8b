import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Folders that hold no documentation of ours. */
const SKIPPED = new Set(["node_modules", ".git", ".data", "dist", ".bench"]);

/** Every Markdown file of the repository, relative to its root. */
export function markdownFiles(root: string, dir = root): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !SKIPPED.has(entry.name))
      found.push(...markdownFiles(root, join(dir, entry.name)));
    else if (entry.isFile() && entry.name.endsWith(".md")) found.push(relative(root, join(dir, entry.name)));
  }
  return found.sort();
}

/** The text without fenced code blocks: a `# comment` in a shell block is no heading. */
function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** The text without code blocks and code spans: a `](` shown as code is not a link. */
function withoutCode(text: string): string {
  return withoutFences(text).replace(/(`+)[\s\S]*?\1/g, "");
}

/**
 * The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens, and a repeated
 * heading numbered (`-1`, `-2`) as github-slugger does.
 */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative links (and images) of a Markdown text: `[text](target)`, code left out, external ones skipped. */
export function relativeLinks(text: string): string[] {
  return [...withoutCode(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * Every relative link of the given files that leads nowhere: a file that does not exist, or an `#anchor` that no
 * heading of the target file gives. Each as `file: target (why)`.
 */
export function brokenLinks(root: string, files: string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    for (const target of relativeLinks(text)) {
      const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
      const targetPath =
        pathPart === "" ? join(root, file) : resolve(root, dirname(file), decodeURI(pathPart));
      if (!existsSync(targetPath)) {
        broken.push(`${file}: ${target} (no file ${relative(root, targetPath)})`);
      } else if (anchor !== undefined && targetPath.endsWith(".md")) {
        if (!headingAnchors(readFileSync(targetPath, "utf8")).has(anchor)) {
          broken.push(`${file}: ${target} (no heading gives #${anchor})`);
        }
      }
    }
  }
  return broken;
}
