import { setTimeout as sleep } from "node:timers/promises";

/** A call of the prober: one request, true when the API answered it successfully. */
export type Probe = () => Promise<boolean>;

/**
 * Calls the API without pause (one request in flight, a short deadline each) and keeps the times of the
 * successful answers, so the test can say how long the API gave none after a fault: what a user polling a PR's
 * state would have seen.
 */
export class ApiProber {
  private readonly successes: number[] = [];
  private running = true;
  private readonly loop: Promise<void>;
  attempts = 0;
  failures = 0;

  constructor(probe: Probe, intervalMs = 100) {
    this.loop = (async () => {
      while (this.running) {
        this.attempts += 1;
        const ok = await probe().catch(() => false);
        if (ok) this.successes.push(Date.now());
        else this.failures += 1;
        await sleep(intervalMs);
      }
    })();
  }

  /**
   * The longest stretch within [from, to] with no successful request: from `from` (or a success) to the next
   * success, and from the last success to `to`.
   */
  longestGap(from: number, to: number): number {
    let last = from;
    let longest = 0;
    for (const at of this.successes) {
      if (at <= from) continue;
      if (at > to) break;
      longest = Math.max(longest, at - last);
      last = at;
    }
    return Math.max(longest, to - last);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/**
 * A POST a gateway should answer 200 within `timeoutMs`. With several gateway replicas it goes to the one that
 * answered last and, when that one fails, straight to the next, as a load balancer in front of them would.
 */
export function postProbe(urls: readonly string[], token: string, body: unknown, timeoutMs = 2_000): Probe {
  let current = 0;
  const once = async (url: string) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return response.status === 200;
  };
  return async () => {
    for (let tried = 0; tried < urls.length; tried++) {
      if (await once(urls[current]!).catch(() => false)) return true;
      current = (current + 1) % urls.length;
    }
    return false;
  };
}
