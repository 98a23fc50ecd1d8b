/// <reference lib="dom" />
import type { Page } from "playwright-core";

/**
 * What a page does wrong for people who use a keyboard, a screen reader, low vision or a phone, checked in the
 * real browser on the rendered page: controls without an accessible name, text below WCAG AA contrast against
 * the background it is drawn on, and content wider than a 375 px screen. Returns one sentence per problem.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // tsx (esbuild) names functions through a __name helper the page does not have: give it a harmless one.
  await page.evaluate("globalThis.__name ??= (f) => f");
  const problems = await page.evaluate(pageProblems);
  const size = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 700 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (width > 375) problems.push(`the page is ${width} px wide on a 375 px screen (it scrolls sideways)`);
  if (size) await page.setViewportSize(size);
  return problems;
}

/** Runs inside the page (serialised by playwright): no closure over this module. */
function pageProblems(): string[] {
  const found: string[] = [];
  const describe = (el: Element) =>
    `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className ? `.${String(el.className).split(" ")[0]}` : ""}`;

  // Every control has a name a screen reader can say.
  for (const el of document.querySelectorAll("input, select, textarea, button, a[href]")) {
    const input = el as HTMLInputElement;
    if (input.type === "hidden") continue;
    const labelled =
      (input.labels?.length ?? 0) > 0 ||
      el.getAttribute("aria-label") ||
      el.getAttribute("aria-labelledby") ||
      ((el.tagName === "BUTTON" || el.tagName === "A") && (el.textContent ?? "").trim() !== "");
    if (!labelled) found.push(`${describe(el)} has no accessible name`);
  }
  for (const img of document.querySelectorAll("img:not([alt])"))
    found.push(`${describe(img)} has no alt text`);
  if (!document.querySelector("h1")) found.push("the page has no h1");

  // Text contrast against the first opaque background behind it (WCAG 2 relative luminance).
  const rgb = (color: string): [number, number, number, number] => {
    const m = /rgba?\(([^)]+)\)/.exec(color);
    const parts = (m?.[1] ?? "0,0,0,0").split(",").map((p) => Number(p.trim()));
    return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
  };
  const luminance = ([r, g, b]: number[]) => {
    const lin = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r ?? 0) + 0.7152 * lin(g ?? 0) + 0.0722 * lin(b ?? 0);
  };
  const background = (el: Element | null): number[] => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set<Element>();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || seen.has(el) || (node.textContent ?? "").trim() === "") continue;
    seen.add(el);
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility === "hidden" || box.width === 0 || box.height === 0) continue;
    const fg = luminance(rgb(style.color));
    const bg = luminance(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    const px = parseFloat(style.fontSize);
    const large = px >= 24 || (px >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5))
      found.push(
        `"${(node.textContent ?? "").trim().slice(0, 30)}" (${describe(el)}) has contrast ${ratio.toFixed(2)}:1`,
      );
  }
  return found;
}

/**
 * Words of state badges and column headers that the layout broke across lines ("RUNNIN/G", "Dept/h"), each as
 * the word it broke. A word's range spanning two line boxes is a broken word.
 */
export async function brokenWords(page: Page): Promise<string[]> {
  await page.evaluate("globalThis.__name ??= (f) => f");
  return page.evaluate(() => {
    const doc = document;
    const broken: string[] = [];
    for (const element of doc.querySelectorAll(".badge, thead th")) {
      const walker = doc.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        for (const match of text.matchAll(/\S+/g)) {
          const range = doc.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  });
}
