import { InternalError } from "@mainline/kit/errors/index";
import type { Collection, Store } from "@mainline/kit/store/index";
import type { SnapshotDocument, SnapshotPartDocument, TestDocument } from "./documents.js";
import { packItems, unpackItems } from "./packed-parts.js";

/**
 * Snapshots of every test of a repository. A snapshot is written part by part under a new
 * generation and committed by replacing the repository's snapshot document, so a crash while
 * writing leaves the previous snapshot current and complete.
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
    const parts = await this.parts.find({ org, repoKey, generation }, { sort: { part: 1 } });
    const what = `snapshot ${generation} of ${org}/${repoKey}`;
    if (parts.length !== head.parts)
      throw new InternalError(`${what}: ${head.parts - parts.length} part(s) missing`);
    const tests = unpackItems<TestDocument>(
      parts.map((p) => p.data),
      what,
    );
    if (tests.length !== head.tests)
      throw new InternalError(`${what}: holds ${tests.length} of ${head.tests} tests`);
    return tests;
  }

  /** Makes `tests` (the repository's state after journal entry `seq`) the current snapshot. */
  async write(org: string, repoKey: string, seq: number, tests: readonly TestDocument[], takenAt: number) {
    const previous = await this.current(org, repoKey);
    const generation = (previous?.generation ?? 0) + 1;
    const packed = packItems(tests);
    for (const [part, data] of packed.entries()) {
      await this.parts.replaceOne(
        { _id: partId(org, repoKey, generation, part) },
        { org, repoKey, generation, part, data },
        { upsert: true },
      );
    }
    await this.heads.replaceOne(
      { _id: headId(org, repoKey) },
      { org, repoKey, generation, seq, parts: packed.length, tests: tests.length, takenAt },
      { upsert: true },
    );
    // Older generations (and parts of a snapshot a crash interrupted) are no longer reachable.
    await this.parts.deleteMany({ org, repoKey, generation: { $ne: generation } });
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

function partId(org: string, repoKey: string, generation: number, part: number): string {
  return `${org}\n${repoKey}\n${generation}\n${part}`;
}
