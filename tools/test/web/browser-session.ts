import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's chromium: no test downloads a browser. */
export const CHROMIUM = "/usr/bin/chromium";

/** Fails at once, naming the install step, when chromium is missing (call it before any costly set-up). */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is not installed: apt-get install -y chromium (tools/scripts/ensure-deps.sh)`,
    );
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

/** A new page of `browser` signed in to the web page at `origin` with `token`, showing the Queues page. */
export async function signedInPage(
  browser: Browser,
  origin: string,
  token: string,
  viewport = { width: 1200, height: 900 },
): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  await page.goto(`${origin}/`);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Queues" }).waitFor();
  return page;
}
