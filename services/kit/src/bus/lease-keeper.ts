import { InvalidArgumentError } from "../errors/index.js";
import { LeaseLostError, type Leases } from "./lease.js";

export interface LeaseKeeperOptions {
  /** Well inside the ttl (a third of it is usual) so that one failed renewal is survivable. */
  renewEveryMs: number;
  /**
   * Called once when the lease is gone: another owner took it, or renewals kept failing until it
   * expired by our clock. The holder must stop acting as owner at once.
   */
  onLost: (key: string, cause: unknown) => void;
  /** Told about a renewal that failed while the lease was still valid. */
  onRenewError?: (key: string, cause: unknown) => void;
  /** Epoch milliseconds; the same clock the Leases use. */
  now?: () => number;
}

/** Keeps renewing one held lease until stopped or lost. */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> = Promise.resolve();
  private active = true;
  private readonly now: () => number;

  private constructor(
    private readonly leases: Leases,
    readonly key: string,
    private readonly options: LeaseKeeperOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Starts keeping a lease this process holds (after a successful acquire). */
  static start(leases: Leases, key: string, options: LeaseKeeperOptions): LeaseKeeper {
    if (!Number.isInteger(options.renewEveryMs) || options.renewEveryMs <= 0) {
      throw new InvalidArgumentError("renewEveryMs", "a whole number of milliseconds > 0");
    }
    if (!leases.heldLease(key)) throw new LeaseLostError(key);
    const keeper = new LeaseKeeper(leases, key, options);
    keeper.schedule();
    return keeper;
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Stops renewing (the lease then runs out unless released); waits for a renewal in flight. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.active = false;
    clearTimeout(this.timer);
    await this.renewing;
    if (options.release) await this.leases.release(this.key);
  }

  private schedule(): void {
    // A chain of timeouts rather than an interval: a slow renewal never overlaps the next one.
    this.timer = setTimeout(() => {
      this.renewing = this.renewOnce().finally(() => {
        if (this.active) this.schedule();
      });
    }, this.options.renewEveryMs);
  }

  private async renewOnce(): Promise<void> {
    const before = this.leases.heldLease(this.key);
    try {
      await this.leases.renew(this.key);
    } catch (error) {
      if (!this.active) return;
      if (error instanceof LeaseLostError || before === undefined || this.now() >= before.expiresAt) {
        this.lose(error);
      } else {
        this.options.onRenewError?.(this.key, error);
      }
    }
  }

  private lose(cause: unknown): void {
    this.active = false;
    clearTimeout(this.timer);
    this.options.onLost(this.key, cause);
  }
}
