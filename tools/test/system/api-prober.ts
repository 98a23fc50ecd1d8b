import { setTimeout as sleep } from "node:timers/promises";

/** A call of the prober: one request; resolves when the API answered it successfully, throws why not. */
export type Probe = () => Promise<unknown>;

/**
 * Calls the API without pause (one request in flight, a short deadline each) and keeps the times of the
 * successful answers, so the test can say how long the API gave none after a fault: what a user polling a PR's
 * state would have seen. The failures are kept with their reason, so a long gap says what the API answered.
 */
export class ApiProber {
  private readonly successes: number[] = [];
  private readonly failed: { at: number; reason: string }[] = [];
  private running = true;
  private readonly loop: Promise<void>;
  attempts = 0;
  failures = 0;

  constructor(probe: Probe, intervalMs = 100) {
    this.loop = (async () => {
      while (this.running) {
        this.attempts += 1;
        try {
          await probe();
          this.successes.push(Date.now());
        } catch (error) {
          this.failures += 1;
          this.failed.push({
            at: Date.now(),
            reason: error instanceof Error ? error.message : String(error),
          });
        }
        await sleep(intervalMs);
      }
    })();
  }

  /**
   * The longest stretch within [from, to] with no successful request: from `from` (or a success) to the next
   * success, and from the last success to `to`.
   */
  longestGap(from: number, to: number): number {
    const [start, end] = this.longestGapWindow(from, to);
    return end - start;
  }

  /** The distinct reasons of the failures within the longest gap of [from, to], each with its count. */
  reasonsInLongestGap(from: number, to: number): string[] {
    const [start, end] = this.longestGapWindow(from, to);
    const counts = new Map<string, number>();
    for (const { at, reason } of this.failed)
      if (at > start && at <= end) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    return [...counts].map(([reason, n]) => `${n}x ${reason}`);
  }

  private longestGapWindow(from: number, to: number): [number, number] {
    let last = from;
    let window: [number, number] = [from, from];
    for (const at of this.successes) {
      if (at <= from) continue;
      if (at > to) break;
      if (at - last > window[1] - window[0]) window = [last, at];
      last = at;
    }
    return to - last > window[1] - window[0] ? [last, to] : window;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/**
 * A POST a gateway should answer 200 within `timeoutMs`. With several gateway replicas it goes to the one that
 * answered last and, when that one fails, straight to the next, as a load balancer in front of them would.
 * Throws the last failure (status and the start of the body, or the network error) when none answered.
 */
export function postProbe(urls: readonly string[], token: string, body: unknown, timeoutMs = 2_000): Probe {
  let current = 0;
  const once = async (url: string): Promise<string | undefined> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    return response.status === 200 ? undefined : `${response.status} ${text.slice(0, 160)}`;
  };
  return async () => {
    let why = "";
    for (let tried = 0; tried < urls.length; tried++) {
      const failure = await once(urls[current]!).catch((error: Error) => `${error.name}: ${error.message}`);
      if (failure === undefined) return;
      why = `gateway ${current}: ${failure}`;
      current = (current + 1) % urls.length;
    }
    throw new Error(why);
  };
}
