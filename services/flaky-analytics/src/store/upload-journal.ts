import { InternalError } from "@mainline/kit/errors/index";
import type { Collection, Store } from "@mainline/kit/store/index";
import type { UploadDocument, UploadEntry, UploadPartDocument, UploadSummary } from "./documents.js";
import { packItems, unpackItems } from "./packed-parts.js";

/** A committed upload not yet in a snapshot, as a replay needs it. */
export interface JournalEntry {
  seq: number;
  entry: UploadEntry;
  publishedEvents: readonly string[];
}

/**
 * The uploads of every repository: which upload ids were applied, and the journal of the uploads no
 * snapshot contains yet. An upload is committed by one write, its upload document; the parts that
 * do not fit in it are written before, so a crash leaves either the whole entry or an orphan part
 * that nothing refers to (and that the next load removes).
 */
export class UploadJournal {
  private constructor(
    private readonly uploads: Collection<UploadDocument>,
    private readonly parts: Collection<UploadPartDocument>,
  ) {}

  static async open(store: Store): Promise<UploadJournal> {
    const uploads = store.collection<UploadDocument>("uploads");
    const parts = store.collection<UploadPartDocument>("upload_parts");
    // The embedded store keeps indexes in memory only: declare them at every start.
    await uploads.createIndex({ org: 1, repoKey: 1, seq: 1 });
    await parts.createIndex({ org: 1, repoKey: 1, seq: 1 });
    return new UploadJournal(uploads, parts);
  }

  /** The upload with this id, if it was applied (without its journal entry). */
  find(org: string, uploadId: string): Promise<UploadDocument | null> {
    return this.uploads.findOne({ _id: uploadDocumentId(org, uploadId) }, { projection: { journal: 0 } });
  }

  /** Commits an upload as entry `seq` of its repository's journal. */
  async append(
    org: string,
    repoKey: string,
    seq: number,
    entry: UploadEntry,
    summary: UploadSummary,
    appliedAt: number,
  ): Promise<void> {
    const { runs, ...header } = entry;
    const [first = "", ...rest] = packItems(runs);
    for (const [index, data] of rest.entries()) {
      const part = index + 1;
      // An upsert: a crash may have left an orphan part under the same seq.
      await this.parts.replaceOne(
        { _id: partId(org, repoKey, seq, part) },
        { org, repoKey, seq, part, data },
        { upsert: true },
      );
    }
    await this.uploads.insertOne({
      _id: uploadDocumentId(org, entry.uploadId),
      org,
      repoKey,
      uploadId: entry.uploadId,
      appliedAt,
      summary,
      seq,
      journal: { header, parts: rest.length + 1, first },
    });
  }

  /** The repository's committed entries after `afterSeq`, in journal order. */
  async entriesAfter(org: string, repoKey: string, afterSeq: number): Promise<JournalEntry[]> {
    const docs = await this.uploads.find({ org, repoKey, seq: { $gt: afterSeq } }, { sort: { seq: 1 } });
    const entries: JournalEntry[] = [];
    for (const doc of docs) {
      const what = `journal entry ${doc.seq} of ${org}/${repoKey}`;
      if (doc.journal === undefined)
        throw new InternalError(`${what}: no snapshot contains it, yet it is gone`);
      const { header, parts, first } = doc.journal;
      const rest =
        parts > 1
          ? await this.parts.find({ org, repoKey, seq: doc.seq, part: { $lt: parts } }, { sort: { part: 1 } })
          : [];
      if (rest.length !== parts - 1)
        throw new InternalError(`${what}: ${parts - 1 - rest.length} part(s) missing`);
      const runs = unpackItems<UploadEntry["runs"][number]>([first, ...rest.map((p) => p.data)], what);
      entries.push({ seq: doc.seq, entry: { ...header, runs }, publishedEvents: doc.publishedEvents ?? [] });
    }
    return entries;
  }

  /** Records that a status event of this upload was published. */
  async markPublished(org: string, uploadId: string, eventId: string): Promise<void> {
    await this.uploads.updateOne(
      { _id: uploadDocumentId(org, uploadId) },
      { $addToSet: { publishedEvents: eventId } },
    );
  }

  /** Drops the entries up to `throughSeq` once a snapshot contains them; the upload ids stay. */
  async forget(org: string, repoKey: string, throughSeq: number): Promise<void> {
    await this.parts.deleteMany({ org, repoKey, seq: { $lte: throughSeq } });
    await this.uploads.updateMany(
      { org, repoKey, seq: { $lte: throughSeq }, journal: { $exists: true } },
      { $unset: { journal: "", publishedEvents: "" } },
    );
  }

  /** Removes parts written for an upload that was never committed (a crash before its commit). */
  async dropOrphanParts(org: string, repoKey: string, afterSeq: number): Promise<void> {
    await this.parts.deleteMany({ org, repoKey, seq: { $gt: afterSeq } });
  }

  /** Every repository with uploads not yet in a snapshot, or only those of `org`. */
  async repositoriesWithEntries(org?: string): Promise<{ org: string; repoKey: string }[]> {
    const docs = await this.uploads.find(
      { ...(org === undefined ? {} : { org }), journal: { $exists: true } },
      { projection: { org: 1, repoKey: 1 } },
    );
    return docs.map(({ org, repoKey }) => ({ org, repoKey }));
  }
}

function uploadDocumentId(org: string, uploadId: string): string {
  return `${org}\n${uploadId}`;
}

function partId(org: string, repoKey: string, seq: number, part: number): string {
  return `${org}\n${repoKey}\n${seq}\n${part}`;
}
