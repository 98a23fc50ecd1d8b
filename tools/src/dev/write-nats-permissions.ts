import { writePermissionsBlocks } from "./nats-permissions-config.js";
import { checkoutRoot } from "../checkout-root.js";

// `make nats-permissions`: after a change to service-permissions.ts, regenerate compose's and the chart's copy.
const root = checkoutRoot(import.meta.url);
for (const file of await writePermissionsBlocks(root)) console.log(`updated ${file}`);
