import { setTimeout as sleep } from "node:timers/promises";

/** A loop of one request at a time (2 s deadline), keeping when each succeeded or failed. */
export class Prober {
  private readonly successes: number[] = [];
  private readonly failures: number[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(call: () => Promise<boolean>, intervalMs = 50) {
    this.loop = (async () => {
      while (this.running) {
        const ok = await Promise.race([call(), sleep(2_000).then(() => false)]).catch(() => false);
        (ok ? this.successes : this.failures).push(Date.now());
        await sleep(intervalMs);
      }
    })();
  }

  /** Time from `at` to the first success after the last failure following it; 0 when none failed. */
  backAfter(at: number): number | undefined {
    const lastFailure = this.failures.filter((t) => t >= at).at(-1);
    if (lastFailure === undefined) return 0;
    const back = this.successes.find((t) => t > lastFailure);
    return back === undefined ? undefined : back - at;
  }

  failuresAfter(at: number): number {
    return this.failures.filter((t) => t >= at).length;
  }

  longestGap(from: number, to: number): number {
    let last = from;
    let longest = 0;
    for (const t of this.successes) {
      if (t <= from || t > to) continue;
      longest = Math.max(longest, t - last);
      last = t;
    }
    return Math.max(longest, to - last);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

interface MonitoredNode {
  readonly index: number;
  readonly name: string;
  readonly httpPort: number;
}

interface Jsz {
  meta_cluster?: { leader?: string };
  account_details?: { stream_detail?: { name: string; cluster?: { leader?: string } }[] }[];
}

/**
 * The node to kill for the worst case: the leader of `stream` (the bucket every queue read and write goes
 * through), else the JetStream meta leader, as the nodes' monitoring endpoints (/jsz) report them.
 */
export async function leaderNode(
  nodes: readonly MonitoredNode[],
  stream: string,
): Promise<{ index: number; why: string }> {
  let meta: string | undefined;
  for (const node of nodes) {
    try {
      const response = await fetch(`http://127.0.0.1:${node.httpPort}/jsz?accounts=true&streams=true`, {
        signal: AbortSignal.timeout(2_000),
      });
      const jsz = (await response.json()) as Jsz;
      meta ??= jsz.meta_cluster?.leader;
      for (const account of jsz.account_details ?? []) {
        const leader = account.stream_detail?.find((s) => s.name === stream)?.cluster?.leader;
        const found = nodes.find((n) => n.name === leader);
        if (found)
          return {
            index: found.index,
            why: `leader of ${stream}${leader === meta ? " and the meta leader" : ""}`,
          };
      }
    } catch {
      // a node that does not answer its monitoring port is not the one to kill
    }
  }
  const found = nodes.find((n) => n.name === meta);
  return found
    ? { index: found.index, why: "the JetStream meta leader" }
    : { index: 0, why: "no leader reported; node 0" };
}
