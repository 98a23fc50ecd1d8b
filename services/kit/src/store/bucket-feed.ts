import type { KV, KvEntry } from "nats";

/** Between attempts to open a new watch while the bucket's stream has no leader (a node just died). */
const REOPEN_DELAY_MS = 250;

type Watcher = Awaited<ReturnType<KV["watch"]>>;

/**
 * A key-value watch that can be resumed. The client's ordered consumer lives on one node, with one replica, and
 * notices that node is gone only after two missed idle heartbeats (10 s); until then every write that waits for the
 * feed (the read barrier) waits too. `restart` drops the watch and opens a new one right after the last revision
 * handed over, so a write waits for a new consumer (one request) instead.
 */
export class BucketFeed {
  private watcher: Watcher | undefined;
  /** Bumped by every new watch: entries and endings of a replaced one are ignored. */
  private generation = 0;
  private stopped = false;
  private reopening = false;

  constructor(
    private readonly kv: KV,
    /**
     * The same bucket for `restart`: a resume is asked for while the stream may have no leader, and a request
     * sent then is never answered, so each attempt waits one short timeout (JETSTREAM_ATTEMPTS), not the client's
     * 5 s, and a barrier's 10 s leave room for an election and the resume after it.
     */
    private readonly resumeKv: KV,
    /** The last revision handed over: a new watch resumes after it, and nothing at or before it is handed again. */
    private readonly applied: () => number,
    private readonly onEntry: (entry: KvEntry) => void,
    /** The feed ended for a reason other than `stop` or `restart` (a closed connection, a deleted bucket). */
    private readonly onEnd: (error?: unknown) => void,
  ) {}

  /** Opens the first watch: the last entry of every key, then every later one. */
  async start(): Promise<void> {
    await this.open(this.kv, 0);
  }

  /** The feed looks stalled: resumes it on a new consumer, retrying until one opens (or the feed is stopped). */
  restart(): void {
    if (this.stopped || this.reopening) return;
    this.reopening = true;
    this.generation++;
    this.watcher?.stop();
    this.watcher = undefined;
    void (async () => {
      try {
        while (!this.stopped) {
          try {
            await this.open(this.resumeKv, this.applied() + 1);
            return;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, REOPEN_DELAY_MS));
          }
        }
      } finally {
        this.reopening = false;
      }
    })();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.watcher?.stop();
    this.watcher = undefined;
  }

  private async open(kv: KV, fromRevision: number): Promise<void> {
    const watcher = await kv.watch(fromRevision > 0 ? { resumeFromRevision: fromRevision } : {});
    const generation = ++this.generation;
    if (this.stopped) {
      watcher.stop();
      return;
    }
    this.watcher = watcher;
    void (async () => {
      try {
        for await (const entry of watcher) {
          if (generation !== this.generation) return;
          // Entries come in revision order; a resumed watch may repeat what the one it replaced handed over.
          if (entry.revision <= this.applied()) continue;
          this.onEntry(entry);
        }
        if (generation === this.generation && !this.stopped) this.onEnd();
      } catch (error) {
        if (generation === this.generation && !this.stopped) this.onEnd(error);
      }
    })();
  }
}
