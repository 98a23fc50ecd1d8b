import type { Logger } from "@mainline/kit/logging/index";
import { isQuarantined } from "../domain/index.js";
import type { TestStatus, TestStatusValue } from "../domain/index.js";
import type { TestDocument } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import type { CodeownersCache } from "./codeowners-cache.js";
import type { KeyedLock } from "./keyed-lock.js";
import type { Links } from "./links.js";
import { withoutPendingEvent } from "./journal-replay.js";
import type { TestIndexes } from "./test-indexes.js";

/** What subscribers of test_case.status_changed learn about one change. */
export interface StatusChangeNotice {
  eventId: string;
  test: TestDocument;
  from: TestStatusValue | undefined;
  to: TestStatus;
  quarantined: boolean;
  codeowners: string[];
  htmlUrl: string;
}

export type PublishStatusChange = (notice: StatusChangeNotice) => Promise<void>;

const RETRY_MS = 5_000;

/**
 * Publishes status changes that ingest committed with its upload (DESIGN rule 4): publish, record
 * the publication on the upload (so a replay after a restart does not announce it again), then clear
 * the test's pending event. A failed publish stays pending and is retried by a sweep; the
 * deterministic event id makes a repeat publish a duplicate the stream drops.
 */
export class StatusOutbox {
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly deps: {
      store: FlakyStore;
      testIndexes: TestIndexes;
      lock: KeyedLock;
      codeowners: CodeownersCache;
      links: Links;
      publish: PublishStatusChange;
      logger: Logger;
    },
  ) {}

  /** Publishes the pending events of these tests; never throws (failures are retried later). */
  async deliver(tests: readonly TestDocument[]): Promise<void> {
    for (const test of tests) {
      const pending = test.pendingStatusEvent;
      if (!pending) continue;
      try {
        const repository = await this.deps.store.repositories.get(test.org, test.repo);
        await this.deps.publish({
          eventId: pending.eventId,
          test,
          from: pending.from,
          to: pending.to,
          quarantined: isQuarantined(repository, test.quarantineOverride, pending.to.value),
          codeowners: test.file ? this.deps.codeowners.of(repository.codeowners).ownersOf(test.file) : [],
          htmlUrl: this.deps.links.test(test.org, test.repo, test._id),
        });
        if (pending.uploadId !== undefined) {
          await this.deps.store.uploads.markPublished(test.org, pending.uploadId, pending.eventId);
        }
        await this.clearPending(test, pending.eventId);
      } catch (error) {
        this.deps.logger.warn(
          { err: error, testId: test._id },
          "status change not published yet; will retry",
        );
        this.scheduleSweep();
      }
    }
  }

  /** Publishes everything still pending (after a restart, or after a failed publish). */
  async sweep(): Promise<void> {
    const pending: TestDocument[] = [];
    for (const testIndex of await this.deps.testIndexes.loadAll()) {
      for (const test of testIndex.values()) if (test.pendingStatusEvent) pending.push(test);
    }
    await this.deliver(pending);
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** Under the repository's lock, so that an upload folding the same test cannot bring the event back. */
  private clearPending(test: TestDocument, eventId: string): Promise<void> {
    return this.deps.lock.run(`${test.org}\n${test.repoKey}`, async () => {
      const testIndex = await this.deps.testIndexes.get(test.org, test.repoKey);
      const current = testIndex.get(test._id);
      if (current?.pendingStatusEvent?.eventId === eventId) testIndex.replace(withoutPendingEvent(current));
    });
  }

  private scheduleSweep(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.sweep();
    }, RETRY_MS);
    this.retryTimer.unref();
  }
}
