import { processIo } from "./cli-io.js";
import { runCli } from "./run-cli.js";

/** The `mainline` bin (tools/cli/bin/mainline.cjs runs this file). */
process.exitCode = await runCli(process.argv.slice(2), processIo());
