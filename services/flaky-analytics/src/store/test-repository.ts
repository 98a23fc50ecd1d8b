import { NotFoundError } from "@mainline/kit/errors/index";
import type { Collection, Store } from "@mainline/kit/store/index";
import type { QuarantineOverride } from "../domain/index.js";
import type { TestDocument } from "./documents.js";

/** The tests collection: the one document per test that ingest updates and listings read. */
export class TestRepository {
  private constructor(private readonly tests: Collection<TestDocument>) {}

  static async open(store: Store): Promise<TestRepository> {
    const tests = store.collection<TestDocument>("tests");
    // The embedded store keeps indexes in memory only: declare them at every start.
    await tests.createIndex({ org: 1, repoKey: 1 });
    return new TestRepository(tests);
  }

  async findByIds(org: string, repoKey: string, ids: readonly string[]): Promise<Map<string, TestDocument>> {
    if (ids.length === 0) return new Map();
    const found = await this.tests.find({ _id: { $in: [...ids] }, org, repoKey });
    return new Map(found.map((doc) => [doc._id, doc]));
  }

  async save(doc: TestDocument): Promise<void> {
    await this.tests.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  /** Tests that may be quarantined: flaky or broken by their stored status, or forced by an override. */
  quarantineCandidates(org: string, repoKey: string): Promise<TestDocument[]> {
    return this.tests.find(
      {
        org,
        repoKey,
        $or: [{ "status.value": { $in: ["flaky", "broken"] } }, { quarantineOverride: "ALWAYS_QUARANTINE" }],
      },
      { projection: { status: 1, evidence: 1, quarantineOverride: 1 } },
    );
  }

  async setQuarantineOverride(
    org: string,
    repoKey: string,
    testId: string,
    override: QuarantineOverride | undefined,
  ): Promise<void> {
    const update =
      override === undefined
        ? { $unset: { quarantineOverride: "" as const } }
        : { $set: { quarantineOverride: override } };
    const result = await this.tests.updateOne({ _id: testId, org, repoKey }, update);
    if (result.matchedCount === 0) throw notFound(testId, repoKey);
  }

  async setTicketUrl(org: string, repoKey: string, testId: string, url: string | undefined): Promise<void> {
    const update = url === undefined ? { $unset: { ticketUrl: "" as const } } : { $set: { ticketUrl: url } };
    const result = await this.tests.updateOne({ _id: testId, org, repoKey }, update);
    if (result.matchedCount === 0) throw notFound(testId, repoKey);
  }

  /** Tests whose status change was committed but maybe not published (a crash in between). */
  withPendingStatusEvents(): Promise<TestDocument[]> {
    return this.tests.find({ pendingStatusEvent: { $exists: true } });
  }

  async clearPendingStatusEvent(testId: string, eventId: string): Promise<void> {
    await this.tests.updateOne(
      { _id: testId, "pendingStatusEvent.eventId": eventId },
      { $unset: { pendingStatusEvent: "" } },
    );
  }
}

function notFound(testId: string, repoKey: string): NotFoundError {
  return new NotFoundError(`test ${testId} does not exist in repository ${repoKey}`);
}
