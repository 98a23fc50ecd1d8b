import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Context, Next } from "koa";
import { HttpError } from "../http/error-response.js";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".html": "text/html; charset=utf-8",
};

// Scripts and styles only from this origin: the page holds a session, so nothing injected may run.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the built page (web/dist): hashed files under /assets/ for a year, and index.html for every other GET
 * outside /v1 and /ui, so that a deep link (a test record's html_url, a queue's address) opens the page, which
 * routes on the client. index.html is read once and never cached by the browser, so a new build shows at once.
 */
export function staticFiles(dir: string) {
  let index: Promise<Buffer> | undefined;
  const readIndex = () => (index ??= readFile(path.join(dir, "index.html")));
  return async (ctx: Context, next: Next): Promise<void> => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || /^\/(v1|ui)(\/|$)/.test(ctx.path)) {
      await next();
      return;
    }
    ctx.set("x-content-type-options", "nosniff");
    ctx.set("referrer-policy", "same-origin");
    if (ctx.path.startsWith("/assets/")) {
      const name = path.basename(ctx.path);
      const file = path.join(dir, "assets", name);
      const found = await stat(file).catch(() => undefined);
      // Only plain file names straight under /assets/: nothing else of the disk is reachable.
      if (!/^[\w.-]+$/.test(name) || ctx.path !== `/assets/${name}` || !found?.isFile()) {
        await next();
        return;
      }
      ctx.type = TYPES[path.extname(name)] ?? "application/octet-stream";
      ctx.set("cache-control", "public, max-age=31536000, immutable");
      ctx.vary("accept-encoding");
      // The build writes a gzip copy of every asset; serving it costs nothing per request.
      const gzipped = ctx.acceptsEncodings("gzip", "identity") === "gzip" ? `${file}.gz` : undefined;
      if (gzipped && (await stat(gzipped).catch(() => undefined))) {
        ctx.set("content-encoding", "gzip");
        ctx.body = await readFile(gzipped);
        return;
      }
      ctx.body = await readFile(file);
      return;
    }
    if (path.extname(ctx.path) !== "") {
      await next();
      return;
    }
    let html: Buffer;
    try {
      html = await readIndex();
    } catch {
      index = undefined;
      // Said plainly instead of a bare 404: the page is built by `make dev`/`make test` (tools/scripts/ensure-deps.sh).
      throw new HttpError(
        503,
        `The web page is not built (${dir}/index.html is missing); run: npm run -w @mainline/web build`,
      );
    }
    ctx.type = TYPES[".html"]!;
    ctx.set("cache-control", "no-cache");
    ctx.set("content-security-policy", CSP);
    ctx.set("x-frame-options", "DENY");
    ctx.body = html;
  };
}
