import type { JetStreamClient } from "nats";
import { LeaseKeeper, Leases, type Replication } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { QueueRepository } from "../store/queue-repository.js";
import type { QueueEngine } from "./queue-engine.js";
import { queueKey, type QueueAddress } from "./queue-key.js";

const LEASE_KEY = "timekeeper";

/**
 * Time-driven work: batch deadlines and test timeouts (the planner's wakeAt), and messages left in an outbox
 * when NATS was unreachable or a replica died between commit and publish. Exactly one replica keeps time (a
 * lease in a JetStream key-value bucket); any replica may apply commands, the store's compare-and-set keeps
 * them consistent. When the keeper dies, another replica takes the lease after it expires and carries on from
 * the stored state: nothing is lost, and the batch-runner's idempotency by id means nothing merges twice.
 */
export class Timekeeper {
  private readonly alarms = new Map<string, NodeJS.Timeout>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private keeper: LeaseKeeper | undefined;
  private stopped = false;

  private constructor(
    private readonly engine: QueueEngine,
    private readonly queues: QueueRepository,
    private readonly leases: Leases,
    private readonly logger: Logger,
    private readonly sweepEveryMs: number,
  ) {}

  static async start(options: {
    engine: QueueEngine;
    queues: QueueRepository;
    js: JetStreamClient;
    replicaId: string;
    logger: Logger;
    leaseTtlMs?: number;
    sweepEveryMs?: number;
    replication?: Replication | undefined;
  }): Promise<Timekeeper> {
    const ttlMs = options.leaseTtlMs ?? 15_000;
    const leases = await Leases.open(options.js, "mainline_coordinator_leases", {
      owner: options.replicaId,
      ttlMs,
      replication: options.replication,
    });
    const keeper = new Timekeeper(
      options.engine,
      options.queues,
      leases,
      options.logger,
      options.sweepEveryMs ?? 2_000,
    );
    options.engine.onWake = (address, wakeAt) => keeper.alarm(address, wakeAt);
    keeper.loop();
    return keeper;
  }

  get isKeeper(): boolean {
    return this.keeper?.isActive ?? false;
  }

  /** Sets (or clears) the alarm of one queue; only the keeper acts on alarms. */
  alarm(address: QueueAddress, wakeAt: number | null): void {
    const key = queueKey(address);
    clearTimeout(this.alarms.get(key));
    this.alarms.delete(key);
    if (wakeAt === null || !this.isKeeper || this.stopped) return;
    const delay = Math.max(0, Math.min(wakeAt - Date.now(), 2_147_000_000));
    this.alarms.set(
      key,
      setTimeout(() => {
        this.alarms.delete(key);
        this.engine.apply(address, { type: "TIME_PASSED" }).catch((error: unknown) => {
          this.logger.warn({ err: error, queue: key }, "time-driven step failed; the next sweep retries");
        });
      }, delay),
    );
  }

  private loop(): void {
    const tick = async () => {
      if (this.stopped) return;
      try {
        if (!this.isKeeper) await this.tryToLead();
        if (this.isKeeper) await this.sweep();
      } catch (error) {
        this.logger.warn({ err: error }, "timekeeper sweep failed");
      }
      if (!this.stopped) this.sweepTimer = setTimeout(() => void tick(), this.sweepEveryMs);
    };
    void tick();
  }

  private async tryToLead(): Promise<void> {
    const lease = await this.leases.acquire(LEASE_KEY);
    if (!lease) return;
    this.keeper = LeaseKeeper.start(this.leases, LEASE_KEY, {
      renewEveryMs: Math.max(1000, Math.floor(this.leases.ttlMs / 3)),
      onLost: () => {
        this.logger.warn("lost the timekeeper lease; another replica keeps time now");
        for (const t of this.alarms.values()) clearTimeout(t);
        this.alarms.clear();
      },
    });
    this.logger.info("keeping time for every queue (timekeeper lease acquired)");
  }

  /** Publishes leftover outboxes and fires alarms that are due or were set by another replica's commands. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const doc of await this.queues.all()) {
      const address: QueueAddress = { org: doc.org, repo: doc.repo, targetBranch: doc.targetBranch };
      if (doc.outbox.length > 0 || (doc.insightsSealed?.length ?? 0) > 0)
        await this.engine.serialized(doc._id, () => this.engine.flush(doc));
      if (doc.wakeAt !== null && doc.wakeAt <= now) {
        await this.engine.apply(address, { type: "TIME_PASSED" });
      } else if (doc.wakeAt !== null && !this.alarms.has(doc._id)) {
        this.alarm(address, doc.wakeAt);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.sweepTimer);
    for (const t of this.alarms.values()) clearTimeout(t);
    this.alarms.clear();
    await this.keeper?.stop({ release: true });
  }
}
