import { COMMON_HTML, CURRENCY, EntityDecoder, XML } from "@nodable/entities";

/** A parsed XML element: attributes under "@_name", text under "#text", children by tag name. */
export type XmlElement = { readonly [key: string]: unknown };

/** Deeper than any JUnit report; a bound so that hostile nesting is refused, not followed. */
export const MAX_DEPTH = 64;

/** Thrown for what the validator let through but a JUnit reader will not follow. */
export class XmlTreeError extends Error {}

// The entities fast-xml-parser decodes with htmlEntities on: XML's five, common HTML names, currency
// signs and numeric references.
const entities = new EntityDecoder({
  namedEntities: { ...COMMON_HTML, ...CURRENCY, ...XML },
  numericAllowed: true,
  limit: { maxExpandedLength: 10_000_000 },
});

function decode(text: string): string {
  return text.includes("&") ? entities.decode(text) : text;
}

interface OpenElement {
  name: string;
  node: Record<string, unknown>;
  text: string;
  /** Attributes or child elements: without either, an element is its text alone. */
  structured: boolean;
}

/**
 * Builds the element tree of a document that XMLValidator accepted, in the shape fast-xml-parser
 * gives (attributes "@_name", text "#text", an element with neither attributes nor children as its
 * text, children by tag name, `repeatable` tags always as arrays, others as arrays once repeated).
 * It reads the string once with indexOf, without the parser's per-tag path tracking, which made
 * parsing most of the cost of ingest. Text and attribute values are entity-decoded, CDATA kept
 * verbatim, comments, processing instructions and the declaration skipped.
 */
export function buildXmlTree(source: string, repeatable: ReadonlySet<string>): XmlElement {
  // As every XML parser does: line ends are read as "\n".
  const xml = source.includes("\r") ? source.replace(/\r\n?/g, "\n") : source;
  const document: OpenElement = {
    name: "",
    node: {},
    text: "",
    structured: true,
  };
  const open: OpenElement[] = [document];
  let top = document;
  let at = 0;
  const length = xml.length;
  while (at < length) {
    const lt = xml.indexOf("<", at);
    const textEnd = lt < 0 ? length : lt;
    if (textEnd > at && open.length > 1) top.text += decode(xml.slice(at, textEnd));
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      at = after(xml, "?>", lt + 2);
    } else if (next === 0x21 /* ! */) {
      if (xml.startsWith("<![CDATA[", lt)) {
        const close = xml.indexOf("]]>", lt + 9);
        if (close < 0) throw new XmlTreeError("unterminated CDATA section");
        top.text += xml.slice(lt + 9, close);
        at = close + 3;
      } else {
        at = after(xml, xml.startsWith("<!--", lt) ? "-->" : ">", lt + 2);
      }
    } else if (next === 0x2f /* / */) {
      at = after(xml, ">", lt + 2);
      const closed = open.pop();
      if (closed === undefined || open.length === 0) throw new XmlTreeError("unbalanced end tag");
      top = open[open.length - 1] as OpenElement;
      attach(top, closed, repeatable);
    } else {
      const element: OpenElement = {
        name: "",
        node: {},
        text: "",
        structured: false,
      };
      const { end, selfClosing } = readStartTag(xml, lt + 1, element);
      at = end;
      if (selfClosing) {
        attach(top, element, repeatable);
      } else {
        if (open.length > MAX_DEPTH) throw new XmlTreeError(`elements nested deeper than ${MAX_DEPTH}`);
        open.push(element);
        top = element;
      }
    }
  }
  if (open.length !== 1) throw new XmlTreeError("unclosed element");
  return document.node;
}

/** Reads `<name attr="v" ...>` from just after "<"; fills the element's name and attributes. */
function readStartTag(
  xml: string,
  from: number,
  element: OpenElement,
): { end: number; selfClosing: boolean } {
  let at = from;
  while (at < xml.length && !isNameEnd(xml.charCodeAt(at))) at++;
  element.name = xml.slice(from, at);
  for (;;) {
    while (isSpace(xml.charCodeAt(at))) at++;
    const code = xml.charCodeAt(at);
    if (code === 0x3e /* > */) return { end: at + 1, selfClosing: false };
    if (code === 0x2f /* / */) return { end: after(xml, ">", at), selfClosing: true };
    if (Number.isNaN(code)) throw new XmlTreeError(`unterminated start tag <${element.name}>`);
    const nameStart = at;
    while (at < xml.length && !isNameEnd(xml.charCodeAt(at)) && xml.charCodeAt(at) !== 0x3d /* = */) at++;
    const name = xml.slice(nameStart, at);
    while (isSpace(xml.charCodeAt(at))) at++;
    if (xml.charCodeAt(at) !== 0x3d) throw new XmlTreeError(`attribute ${name} has no value`);
    at++;
    while (isSpace(xml.charCodeAt(at))) at++;
    const quote = xml[at];
    if (quote !== '"' && quote !== "'") throw new XmlTreeError(`attribute ${name} is not quoted`);
    const close = xml.indexOf(quote, at + 1);
    if (close < 0) throw new XmlTreeError(`attribute ${name} is not closed`);
    element.node[`@_${name}`] = decode(xml.slice(at + 1, close));
    element.structured = true;
    at = close + 1;
  }
}

/**
 * Element names that are properties of every object: such an element is left out, so that the tree
 * (plain objects, which the reader indexes by tag name) never reads or replaces an inherited property.
 */
const INHERITED = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"]);

/** Adds a finished element to its parent, as fast-xml-parser lays children out. */
function attach(parent: OpenElement, child: OpenElement, repeatable: ReadonlySet<string>): void {
  if (INHERITED.has(child.name)) return;
  let value: unknown;
  if (child.structured) {
    if (child.text.trim() !== "") child.node["#text"] = child.text;
    value = child.node;
  } else {
    value = child.text;
  }
  parent.structured = true;
  const held = parent.node[child.name];
  if (held === undefined) parent.node[child.name] = repeatable.has(child.name) ? [value] : value;
  else if (Array.isArray(held)) held.push(value);
  else parent.node[child.name] = [held, value];
}

function after(xml: string, marker: string, from: number): number {
  const found = xml.indexOf(marker, from);
  if (found < 0) throw new XmlTreeError(`missing "${marker}"`);
  return found + marker.length;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

function isNameEnd(code: number): boolean {
  return isSpace(code) || code === 0x3e /* > */ || code === 0x2f; /* / */
}
