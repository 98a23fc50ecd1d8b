import { createServer } from "node:net";
import { once } from "node:events";

/** A loopback port nobody listens on right now, for a child process that must be told its port up front. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("no TCP port was assigned");
  return address.port;
}

/**
 * The first of `size` consecutive free loopback ports (the dev system takes gateway, NATS and gRPC base+1..5).
 * Drawn below Linux's ephemeral range (32768 and up), so an outgoing connection or a server on port 0 cannot
 * take one of them between a stop and a restart on the same ports.
 */
export async function freePortBlock(size: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * (12_000 - size));
    const ports = Array.from({ length: size }, (_, i) => base + i);
    const free = await Promise.all(ports.map((port) => isFree(port)));
    if (free.every(Boolean)) return base;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
