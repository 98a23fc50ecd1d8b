/**
 * Compiles one CODEOWNERS pattern with GitHub's rules, which are gitignore's minus negation and
 * character ranges: a pattern without an inner slash matches at any depth; a leading or inner
 * slash anchors it to the root; a trailing slash matches everything below a directory; a plain
 * name also matches everything below it, but a trailing lone `*` matches one level only
 * (`docs/*` owns docs/a.md, not docs/build/b.md). Matching is case-sensitive.
 */
export function compileCodeownersPattern(pattern: string): RegExp {
  if (pattern === "/") return /(?!)/;
  const segments = splitSegments(pattern);
  if (segments[0] === "") {
    segments.shift();
  } else if (segments.length === 1 || (segments.length === 2 && segments[1] === "")) {
    if (segments[0] !== "**") segments.unshift("**");
  }
  if (segments.length > 1 && segments[segments.length - 1] === "") segments[segments.length - 1] = "**";

  let source = "^";
  let needSlash = false;
  segments.forEach((segment, index) => {
    const first = index === 0;
    const last = index === segments.length - 1;
    if (segment === "**") {
      if (first && last) source += ".+";
      else if (first) source += "(?:.+/)?";
      else if (last) source += "/.*";
      else source += "(?:/.+)?";
      needSlash = !first && !last;
      return;
    }
    if (needSlash) source += "/";
    if (segment === "*") {
      source += "[^/]+";
    } else {
      source += segmentSource(segment);
      if (last) source += "(?:/.*)?";
    }
    needSlash = true;
  });
  return new RegExp(`${source}$`, "s");
}

/** Splits on unescaped slashes; escapes stay in place for segmentSource. */
function splitSegments(pattern: string): string[] {
  const segments: string[] = [];
  let current = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === "\\" && i + 1 < pattern.length) {
      current += ch + (pattern[i + 1] as string);
      i++;
    } else if (ch === "/") {
      segments.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  segments.push(current);
  return segments;
}

function segmentSource(segment: string): string {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] as string;
    if (ch === "\\" && i + 1 < segment.length) {
      source += escapeRegExp(segment[i + 1] as string);
      i++;
    } else if (ch === "*") {
      source += "[^/]*";
    } else if (ch === "?") {
      source += "[^/]";
    } else {
      source += escapeRegExp(ch);
    }
  }
  return source;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
