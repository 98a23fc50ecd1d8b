import { NatsServer, type NatsServerOptions } from "@mainline/testing";

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
const STABLE_AFTER_MS = 30_000;

/**
 * The dev nats-server under supervision, like the services: restarted on the same port and store
 * whenever it dies, so the services (which keep reconnecting) recover once it is back.
 */
export class NatsProcess {
  private stopping = false;
  private backoffMs = MIN_BACKOFF_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  restarts = 0;

  private constructor(
    private server: NatsServer,
    private readonly options: NatsServerOptions,
    private readonly log: (message: string) => void,
  ) {}

  static async start(options: NatsServerOptions, log: (message: string) => void): Promise<NatsProcess> {
    const server = await NatsServer.start(options);
    // A restart reuses the port the first start got, or the services could not find it again.
    const supervised = new NatsProcess(server, { ...options, port: server.port }, log);
    supervised.watch(Date.now());
    return supervised;
  }

  get url(): string {
    return this.server.url;
  }

  get pid(): number | undefined {
    return this.server.pid;
  }

  private watch(startedAt: number): void {
    void this.server.exited().then(async () => {
      if (this.stopping) return;
      // The dead server's config (it holds the passwords) goes; the store is elsewhere and stays.
      await this.server.stop();
      if (Date.now() - startedAt > STABLE_AFTER_MS) this.backoffMs = MIN_BACKOFF_MS;
      const delay = this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
      this.restarts += 1;
      this.log(`nats-server exited; restarting in ${delay} ms (restart #${this.restarts})`);
      this.restartTimer = setTimeout(() => void this.restart(), delay);
    });
  }

  private async restart(): Promise<void> {
    if (this.stopping) return;
    try {
      this.server = await NatsServer.start(this.options);
      this.watch(Date.now());
    } catch (error) {
      // e.g. the port is still held by the dying process: try again later.
      const delay = this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
      this.log(`nats-server did not start (${String(error)}); retrying in ${delay} ms`);
      this.restartTimer = setTimeout(() => void this.restart(), delay);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    await this.server.stop();
  }
}
