import path from "node:path";
import { fileURLToPath } from "node:url";
import { writePermissionsBlocks } from "./nats-permissions-config.js";

// `make nats-permissions`: after a change to service-permissions.ts, regenerate compose's and the chart's copy.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
for (const file of await writePermissionsBlocks(root)) console.log(`updated ${file}`);
