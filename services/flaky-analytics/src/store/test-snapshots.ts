import { randomUUID } from "node:crypto";
import { AlreadyExistsError, ConflictError, InternalError } from "@mainline/kit/errors/index";
import type { Collection, Store, StoreFilter } from "@mainline/kit/store/index";
import type { SnapshotDocument, SnapshotPartDocument, TestDocument } from "./documents.js";
import { packItems, unpackItems } from "./packed-parts.js";
import { compactTest, StringPool } from "./compact-test.js";

/**
 * Snapshots of every test of a repository. A snapshot is written part by part under a new
 * generation and committed by replacing the repository's snapshot document, so a crash while
 * writing leaves the previous snapshot current and complete. Replicas may snapshot at once: the
 * parts carry their writer, and the commit is a compare-and-set on the snapshot document that only
 * moves it forward in the journal, so of two writers one commits and the other changes nothing.
 */
export class TestSnapshots {
  private constructor(
    private readonly heads: Collection<SnapshotDocument>,
    private readonly parts: Collection<SnapshotPartDocument>,
  ) {}

  static async open(store: Store): Promise<TestSnapshots> {
    const heads = store.collection<SnapshotDocument>("snapshots");
    const parts = store.collection<SnapshotPartDocument>("snapshot_parts");
    await parts.createIndex({ org: 1, repoKey: 1, generation: 1 });
    await heads.createIndex({ org: 1 });
    return new TestSnapshots(heads, parts);
  }

  current(org: string, repoKey: string): Promise<SnapshotDocument | null> {
    return this.heads.findOne({ _id: headId(org, repoKey) });
  }

  async read(head: SnapshotDocument): Promise<TestDocument[]> {
    const { org, repoKey, generation } = head;
    const writer = head.writer === undefined ? { $exists: false } : head.writer;
    const parts = await this.parts.find({ org, repoKey, generation, writer }, { sort: { part: 1 } });
    const what = `snapshot ${generation} of ${org}/${repoKey}`;
    if (parts.length !== head.parts)
      throw new InternalError(`${what}: ${head.parts - parts.length} part(s) missing`);
    const tests = unpackItems<TestDocument>(
      parts.map((p) => p.data),
      what,
    );
    if (tests.length !== head.tests)
      throw new InternalError(`${what}: holds ${tests.length} of ${head.tests} tests`);
    const pool = new StringPool();
    return tests.map((test) => compactTest(test, pool));
  }

  /**
   * Makes `tests` (the repository's state after journal entry `seq`) the current snapshot, unless
   * the current one is already as far (another replica's): returns whether this one was committed.
   */
  async write(
    org: string,
    repoKey: string,
    seq: number,
    tests: readonly TestDocument[],
    takenAt: number,
    repository: { trend?: number[] } = {},
  ): Promise<boolean> {
    const previous = await this.current(org, repoKey);
    if (previous && previous.seq >= seq) return false;
    const writer = randomUUID();
    // The position names the generation: it only grows (a counter before replicas never passed it).
    const generation = Math.max(seq, (previous?.generation ?? 0) + 1);
    const packed = packItems(tests);
    for (const [part, data] of packed.entries()) {
      await this.parts.insertOne({
        _id: partId(org, repoKey, generation, writer, part),
        org,
        repoKey,
        generation,
        writer,
        part,
        data,
      });
    }
    const head = {
      ...{ org, repoKey, generation, writer, seq, parts: packed.length, tests: tests.length, takenAt },
      annotationsJournaled: true,
      ...(repository.trend !== undefined ? { trend: repository.trend } : {}),
    };
    if (!(await this.commit(head, previous))) {
      await this.dropParts({ org, repoKey, generation, writer });
      return false;
    }
    // Older generations (and parts of snapshots that lost or were interrupted) are no longer reachable;
    // a later generation may be another replica's snapshot still being written.
    await this.dropParts({ org, repoKey, generation: { $lt: generation } });
    await this.dropParts({ org, repoKey, generation, writer: { $ne: writer } });
    return true;
  }

  /**
   * Removes parts nothing refers to. Another replica may be removing the same ones (a conflict on a
   * part it deleted first): whatever is left goes with the next snapshot.
   */
  private async dropParts(filter: StoreFilter<SnapshotPartDocument>): Promise<void> {
    try {
      await this.parts.deleteMany(filter);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }

  private async commit(head: Omit<SnapshotDocument, "_id">, previous: SnapshotDocument | null) {
    const _id = headId(head.org, head.repoKey);
    try {
      if (previous === null) {
        await this.heads.insertOne({ _id, ...head });
        return true;
      }
      const replaced = await this.heads.replaceOne(
        { _id, seq: previous.seq, generation: previous.generation },
        head,
      );
      return replaced.matchedCount === 1;
    } catch (error) {
      if (error instanceof AlreadyExistsError || error instanceof ConflictError) return false;
      throw error;
    }
  }

  /** Every repository with a snapshot, or only those of `org`. */
  async repositories(org?: string): Promise<{ org: string; repoKey: string }[]> {
    const heads = await this.heads.find(org === undefined ? {} : { org }, {
      projection: { org: 1, repoKey: 1 },
    });
    return heads.map(({ org, repoKey }) => ({ org, repoKey }));
  }
}

function headId(org: string, repoKey: string): string {
  return `${org}\n${repoKey}`;
}

function partId(org: string, repoKey: string, generation: number, writer: string, part: number): string {
  return `${org}\n${repoKey}\n${generation}\n${writer}\n${part}`;
}
