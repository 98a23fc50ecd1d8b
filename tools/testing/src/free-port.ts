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
