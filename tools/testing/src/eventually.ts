import { setTimeout as sleep } from "node:timers/promises";

/**
 * Re-runs an assertion until it passes, for state that other processes (or a followed bucket) bring
 * about asynchronously. On timeout the assertion's own last error is thrown, so the failure message
 * says what was expected and what was seen.
 */
export async function eventually<T>(assertion: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(25);
  }
}
