import type { Context } from "mocha";

/**
 * Skips the running test (or hook's suite) and writes why into its title, so the skip and its reason show in the
 * output and in `make test`'s list of skipped tests, where a reader can check the reason. Only for what CI cannot
 * have by design (a MongoDB server, a nats-server of another version): a tool CI installs (nats-server, chromium)
 * that is missing fails the test instead (NatsServer.requireInstalled).
 */
export function skipBecause(context: Context, reason: string): never {
  const runnable = context.currentTest ?? context.test;
  if (runnable) runnable.title += ` (skipped: ${reason})`;
  context.skip();
}
