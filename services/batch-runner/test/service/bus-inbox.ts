import type { JetStreamClient, JetStreamManager } from "nats";
import { consume, ensureConsumer, type ConsumerHandle, type MessageCodec } from "@mainline/kit/bus/index";

const quiet = { warn: () => undefined, error: () => undefined };

/**
 * What the batch-runner published on one subject, as the downstream service would receive it:
 * a real durable consumer on the real stream, collecting decoded messages by key.
 */
export class BusInbox<T> {
  private readonly received: T[] = [];
  private wakeups: (() => void)[] = [];

  private constructor(
    private readonly keyOf: (message: T) => string,
    private handle?: ConsumerHandle,
  ) {}

  static async open<T>(options: {
    js: JetStreamClient;
    jsm: JetStreamManager;
    stream: string;
    subject: string;
    durable: string;
    codec: MessageCodec<T>;
    keyOf: (message: T) => string;
  }): Promise<BusInbox<T>> {
    await ensureConsumer(options.jsm, options.stream, {
      durable: options.durable,
      filterSubjects: [options.subject],
      ackWaitMs: 30_000,
      maxDeliver: 3,
    });
    const inbox = new BusInbox<T>(options.keyOf);
    inbox.handle = await consume({
      js: options.js,
      stream: options.stream,
      durable: options.durable,
      codec: options.codec,
      logger: quiet,
      concurrency: 8,
      handler: ({ data }) => {
        inbox.received.push(data);
        inbox.wakeups.splice(0).forEach((wake) => wake());
        return Promise.resolve();
      },
    });
    return inbox;
  }

  /** The first message with this key, once it has arrived. */
  async first(key: string): Promise<T> {
    for (;;) {
      const found = this.received.find((m) => this.keyOf(m) === key);
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => this.wakeups.push(resolve));
    }
  }

  all(key: string): T[] {
    return this.received.filter((m) => this.keyOf(m) === key);
  }

  async stop(): Promise<void> {
    await this.handle?.stop();
  }
}
