import { NatsServer } from "@mainline/testing";
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from "nats";
import type { BusLogger } from "../../src/bus/index.js";

/** One nats-server per test file; connections are opened per test and closed by `closeAll`. */
export class BusFixture {
  private readonly connections: NatsConnection[] = [];

  private constructor(readonly server: NatsServer) {}

  static async start(): Promise<BusFixture> {
    return new BusFixture(await NatsServer.start());
  }

  async connect(): Promise<{ nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager }> {
    const nc = await connect(this.server.connectOptions());
    this.connections.push(nc);
    return { nc, js: nc.jetstream(), jsm: await nc.jetstreamManager() };
  }

  async closeAll(): Promise<void> {
    await Promise.all(
      this.connections.splice(0).map(async (nc) => {
        if (!nc.isClosed()) await nc.close();
      }),
    );
  }

  async stop(): Promise<void> {
    await this.closeAll();
    await this.server.stop();
  }
}

/** A logger that records what the bus reported, so tests can wait for a settled message. */
export class RecordingLogger implements BusLogger {
  readonly lines: { level: "warn" | "error"; msg: string; obj: object }[] = [];
  private waiters: (() => void)[] = [];

  warn(obj: object, msg: string): void {
    this.record("warn", obj, msg);
  }

  error(obj: object, msg: string): void {
    this.record("error", obj, msg);
  }

  /** Resolves once a line whose message contains `text` has been logged `count` times. */
  async waitFor(text: string, count = 1): Promise<void> {
    while (this.lines.filter((l) => l.msg.includes(text)).length < count) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private record(level: "warn" | "error", obj: object, msg: string): void {
    this.lines.push({ level, obj, msg });
    const waiters = this.waiters.splice(0);
    waiters.forEach((wake) => wake());
  }
}

/** A promise with its resolver outside, for "wait until the handler saw N messages". */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
