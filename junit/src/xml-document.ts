import { XMLValidator } from "fast-xml-parser";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { buildXmlTree, XmlTreeError } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

export type { XmlElement } from "./xml-tree.js";

/**
 * Elements that may repeat. Declared up front so that one child and many children have the same
 * shape (an array); the tree cannot know it from a document with a single occurrence.
 */
const REPEATABLE = new Set([
  "testsuite",
  "testcase",
  "failure",
  "error",
  "skipped",
  "flakyFailure",
  "flakyError",
  "rerunFailure",
  "rerunError",
  "system-out",
  "system-err",
]);

/**
 * Parses an XML document into plain objects, refusing what a JUnit report never contains.
 * `field` names the upload in errors, so the caller's 400 says which file was bad and where.
 */
export function parseXmlDocument(xml: string, field: string): XmlElement {
  if (xml.trim() === "") throw new InvalidArgumentError(field, "must be a non-empty XML document");

  // Entity definitions live only in a DTD; refusing the DTD closes off entity-expansion
  // ("billion laughs") and external-entity attacks regardless of parser limits.
  const doctypeAt = doctypeOffset(xml);
  if (doctypeAt !== undefined) {
    const { line, column } = lineAndColumn(xml, doctypeAt);
    throw new InvalidArgumentError(
      field,
      `DOCTYPE declarations are not accepted (line ${line}, column ${column})`,
    );
  }

  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) throw new InvalidArgumentError(field, describeMalformed(xml, verdict.err));

  try {
    return buildXmlTree(xml, REPEATABLE);
  } catch (cause) {
    // The validator accepts a few things the tree refuses (nesting deeper than MAX_DEPTH).
    if (!(cause instanceof XmlTreeError)) throw cause;
    throw new InvalidArgumentError(field, `malformed XML: ${cause.message}`);
  }
}

/**
 * Where and why the document breaks. The validator reports elements left open at the end (a truncated
 * file) at line 1, column 1 with their names as a JSON list; the place that breaks is the end.
 */
function describeMalformed(
  xml: string,
  err: { code: string; msg: string; line: number; col: number },
): string {
  const unclosed = /^Invalid '(\[[\s\S]*\])' found\.$/.exec(err.msg)?.[1];
  if (err.code === "InvalidXml" && unclosed !== undefined) {
    const { line, column } = lineAndColumn(xml, xml.trimEnd().length);
    let names: string[] = [];
    try {
      names = JSON.parse(unclosed) as string[];
    } catch {
      // Only the names are lost; the position stands.
    }
    const open = names.length > 0 ? ` with ${names.map((n) => `<${n}>`).join(", ")} still open` : "";
    return `malformed XML at line ${line}, column ${column}: the document ends${open} (is the file truncated?)`;
  }
  // The validator names a character by its first UTF-16 unit; quote the whole character instead.
  const msg = err.msg.replace(/char '([\uD800-\uDBFF])' is not expected/, (whole) => {
    const offset = offsetOf(xml, err.line, err.col);
    const char = offset === undefined ? undefined : String.fromCodePoint(xml.codePointAt(offset) ?? 0xfffd);
    return char === undefined ? whole : `char '${char}' is not expected`;
  });
  return `malformed XML at line ${err.line}, column ${err.col}: ${msg}`;
}

function offsetOf(text: string, line: number, column: number): number | undefined {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const newline = text.indexOf("\n", at);
    if (newline < 0) return undefined;
    at = newline + 1;
  }
  const offset = at + column - 1;
  return offset < text.length ? offset : undefined;
}

/** Offset of a DOCTYPE in the prolog (before the root element), where XML allows one. */
function doctypeOffset(xml: string): number | undefined {
  let i = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < xml.length && /\s/.test(xml[i] ?? "")) i++;
    if (xml.startsWith("<?", i)) {
      const end = xml.indexOf("?>", i + 2);
      if (end < 0) return undefined;
      i = end + 2;
    } else if (xml.startsWith("<!--", i)) {
      const end = xml.indexOf("-->", i + 4);
      if (end < 0) return undefined;
      i = end + 3;
    } else {
      return xml.startsWith("<!DOCTYPE", i) || xml.startsWith("<!doctype", i) ? i : undefined;
    }
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
