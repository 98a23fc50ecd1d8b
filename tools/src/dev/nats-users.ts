import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { NatsUser } from "@mainline/testing";
import { servicePermissions } from "./service-permissions.js";

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
    permissions: servicePermissions(service),
  }));
}
