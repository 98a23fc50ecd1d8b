import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { NatsUser } from "@mainline/testing";

/**
 * What a Mainline service may do on the bus: JetStream only (its API, acks, flow control, key-value
 * buckets) and Mainline's own stream subjects; replies come back on inboxes. The lifecycle events may also be
 * heard as they are published: the gateway's live web page listens to them with a plain subscription (no
 * consumer state per replica); a service could read them from the events stream anyway. The same lists are in
 * docker-compose's nats.conf and the Helm chart's NATS config.
 */
export const SERVICE_PERMISSIONS: NonNullable<NatsUser["permissions"]> = {
  publish: { allow: ["mainline.>", "$JS.API.>", "$JS.ACK.>", "$JS.FC.>", "$KV.>", "$O.>", "_INBOX.>"] },
  subscribe: { allow: ["_INBOX.>", "mainline.events.>"] },
};

/**
 * One NATS user per service, passwords generated on the first run and kept (mode 0600) in the data
 * dir, so a restart of `make dev` finds the same ones. Nothing else may connect: a test command that
 * finds the port has no password.
 */
export async function serviceNatsUsers(dataDir: string, services: readonly string[]): Promise<NatsUser[]> {
  const file = path.join(dataDir, "nats-passwords.json");
  let passwords: Record<string, string> = {};
  try {
    passwords = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
  } catch {
    // first run: generated below
  }
  let changed = false;
  for (const service of services) {
    if (typeof passwords[service] === "string") continue;
    passwords[service] = randomBytes(24).toString("base64url");
    changed = true;
  }
  if (changed) await writeFile(file, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
  return services.map((service) => ({
    user: service,
    password: passwords[service]!,
    permissions: SERVICE_PERMISSIONS,
  }));
}
