import { readFile } from "node:fs/promises";
import path from "node:path";
import { EXIT } from "@mainline/cli-src";
import { runDemo } from "./run-demo.js";
import { checkoutRoot } from "../checkout-root.js";

/**
 * `make demo`, with `make dev` running: see runDemo. Reads the gateway address and token the way `make dev`
 * leaves them (GATEWAY_PORT, .data/dev-api-token) unless MAINLINE_URL / MAINLINE_TOKEN say otherwise.
 */
const root = checkoutRoot(import.meta.url);
const dataDir = path.resolve(root, process.env.DEV_DATA_DIR ?? ".data");
const mainlineUrl = process.env.MAINLINE_URL ?? `http://127.0.0.1:${process.env.GATEWAY_PORT ?? 8080}`;
// The CLI's exit codes (README), so a script tells "not set up" and "not running" from "a PR went wrong".
const fail = (message: string, code: number = EXIT.failed): never => {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(code);
};

const token =
  process.env.MAINLINE_TOKEN ??
  (await readFile(path.join(dataDir, "dev-api-token"), "utf8").then(
    (text) => text.trim(),
    () =>
      fail(
        `no API token: start \`make dev\` first (it writes ${dataDir}/dev-api-token), or export MAINLINE_TOKEN`,
        EXIT.usage,
      ),
  ));

const ready = await fetch(`${mainlineUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/readyz`).then(
  (response) => response.ok,
  () => false,
);
if (!ready)
  fail(
    `Mainline is not running at ${mainlineUrl}: run \`make dev\` in another terminal, wait for its token line, then \`make demo\``,
    EXIT.unreachable,
  );

try {
  const result = await runDemo({
    mainlineUrl,
    token,
    workDir: path.join(dataDir, "demo"),
    out: process.stdout,
  });
  process.exitCode = result.summary.surprises.length === 0 ? EXIT.ok : EXIT.failed;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
