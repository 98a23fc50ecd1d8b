#!/usr/bin/env node
// The `mainline` command. The CLI is TypeScript run from source, so this re-runs node with the source
// condition and the tsx loader (resolved from here, so it works from any directory) and passes the exit code on.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

// `make test` sets MAINLINE_RUN_COMPILED=1 once `tsc -b` has built dist/ (@mainline/testing's nodeEntryArgs): the
// compiled CLI then starts without compiling its sources again.
const args =
  process.env.MAINLINE_RUN_COMPILED === "1"
    ? [path.join(__dirname, "..", "dist", "src", "main.js")]
    : [
        "--conditions=mainline-source",
        "--import",
        pathToFileURL(require.resolve("tsx", { paths: [__dirname] })).href,
        path.join(__dirname, "..", "src", "main.ts"),
      ];
const child = spawn(process.execPath, [...args, ...process.argv.slice(2)], { stdio: "inherit" });
// Ctrl-C reaches the child from the terminal by itself; signals sent to this process alone are passed on.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
