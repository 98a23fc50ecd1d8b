import { randomUUID } from "node:crypto";
import { AlreadyExistsError, ConflictError } from "@mainline/kit/errors/index";
import type { Collection, Store } from "@mainline/kit/store/index";
import type {
  AnnotationEntry,
  JournalEntryDocument,
  UploadDocument,
  UploadEntry,
  UploadPartDocument,
  UploadSummary,
} from "./documents.js";
import { packItems, unpackItems } from "./packed-parts.js";

/** A committed journal entry not yet in a snapshot, as a replay needs it. */
export type JournalEntry =
  | { seq: number; kind: "upload"; entry: UploadEntry; summary: UploadSummary; appliedAt: number }
  | { seq: number; kind: "annotation"; annotation: AnnotationEntry };

/** Thrown by append when another replica committed that journal position first. */
export class JournalPositionTakenError extends ConflictError {
  constructor(
    readonly org: string,
    readonly repoKey: string,
    readonly seq: number,
  ) {
    super(`journal entry ${seq} of ${org}/${repoKey} was taken by another replica`);
  }
}

/**
 * The journal of every repository: what changed since the last snapshot, one entry per position.
 * Several replicas append to one journal: an entry is committed by creating its position's
 * document, which only one writer can do, so every replica replays the same entries in the same
 * order. The parts of an upload too big for that document are written before it, marked with the
 * writer, so a crash or a lost race leaves parts that nothing refers to (removed with the
 * positions a snapshot covers).
 */
export class UploadJournal {
  private constructor(
    private readonly entries: Collection<JournalEntryDocument>,
    private readonly uploads: Collection<UploadDocument>,
    private readonly parts: Collection<UploadPartDocument>,
  ) {}

  /**
   * A name for this journal's data, the same in every replica sharing the store and different in
   * another store (another database on the same NATS): made once, by whichever replica comes first.
   */
  async identity(): Promise<string> {
    const id = "identity";
    const mark = { _id: id, org: "", repoKey: "", seq: 0, writer: randomUUID() };
    try {
      await this.entries.insertOne(mark);
    } catch (error) {
      if (!(error instanceof AlreadyExistsError || error instanceof ConflictError)) throw error;
    }
    return (await this.entries.findOne({ _id: id }))?.writer ?? mark.writer;
  }

  static async open(store: Store): Promise<UploadJournal> {
    const entries = store.collection<JournalEntryDocument>("journal");
    const uploads = store.collection<UploadDocument>("uploads");
    const parts = store.collection<UploadPartDocument>("upload_parts");
    // The embedded store keeps indexes in memory only: declare them at every start.
    await entries.createIndex({ org: 1, repoKey: 1, seq: 1 });
    await uploads.createIndex({ org: 1, repoKey: 1, seq: 1 });
    await parts.createIndex({ org: 1, repoKey: 1, seq: 1 });
    return new UploadJournal(entries, uploads, parts);
  }

  /** The upload with this id, if it was applied (without a journal entry of before replicas). */
  find(org: string, uploadId: string): Promise<UploadDocument | null> {
    return this.uploads.findOne({ _id: uploadDocumentId(org, uploadId) }, { projection: { journal: 0 } });
  }

  /** Commits an upload as entry `seq` of its repository's journal; JournalPositionTakenError if taken. */
  async appendUpload(
    org: string,
    repoKey: string,
    seq: number,
    entry: UploadEntry,
    summary: UploadSummary,
    appliedAt: number,
  ): Promise<void> {
    const writer = randomUUID();
    const { runs, ...header } = entry;
    const [first = "", ...rest] = packItems(runs);
    for (const [index, data] of rest.entries()) {
      const part = index + 1;
      await this.parts.insertOne({
        _id: partId(org, repoKey, seq, writer, part),
        org,
        repoKey,
        seq,
        writer,
        part,
        data,
      });
    }
    const upload = { uploadId: entry.uploadId, summary, appliedAt, header, parts: rest.length + 1, first };
    try {
      await this.entries.insertOne({ _id: entryId(org, repoKey, seq), org, repoKey, seq, writer, upload });
    } catch (error) {
      if (rest.length > 0) await this.parts.deleteMany({ org, repoKey, seq, writer }).catch(() => undefined);
      throw positionTaken(error, org, repoKey, seq);
    }
  }

  /** Commits an annotation as entry `seq`; JournalPositionTakenError if taken. */
  async appendAnnotation(
    org: string,
    repoKey: string,
    seq: number,
    annotation: AnnotationEntry,
  ): Promise<void> {
    try {
      await this.entries.insertOne({
        _id: entryId(org, repoKey, seq),
        org,
        repoKey,
        seq,
        writer: randomUUID(),
        annotation,
      });
    } catch (error) {
      throw positionTaken(error, org, repoKey, seq);
    }
  }

  /**
   * Records which entry applied an upload id, unless an earlier entry did: the first entry to
   * settle an id wins, whichever replica settles it (the writer right after its commit, or any
   * replica replaying the entry). Returns the winner: an entry of another position is a duplicate.
   */
  async settle(
    org: string,
    repoKey: string,
    seq: number,
    upload: { uploadId: string; summary: UploadSummary; appliedAt: number },
  ): Promise<UploadDocument> {
    const id = uploadDocumentId(org, upload.uploadId);
    const known = await this.find(org, upload.uploadId);
    if (known) return known;
    const { uploadId, summary, appliedAt } = upload;
    try {
      await this.uploads.insertOne({ _id: id, org, repoKey, uploadId, appliedAt, summary, seq });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError || error instanceof ConflictError)) throw error;
    }
    const settled = await this.find(org, upload.uploadId);
    return settled ?? { _id: id, org, repoKey, uploadId, appliedAt, summary, seq };
  }

  /**
   * The repository's entries after `afterSeq`, in journal order, as far as they are complete here:
   * an entry whose parts this replica cannot read yet (another replica's write still arriving) ends
   * the list, and a later call picks it up.
   */
  async entriesAfter(org: string, repoKey: string, afterSeq: number): Promise<JournalEntry[]> {
    const [docs, legacy] = await Promise.all([
      this.entries.find({ org, repoKey, seq: { $gt: afterSeq } }, { sort: { seq: 1 } }),
      this.uploads.find(
        { org, repoKey, seq: { $gt: afterSeq }, journal: { $exists: true } },
        { sort: { seq: 1 } },
      ),
    ]);
    // Entries of before the journal collection are read as entries of no writer.
    const all: (Omit<JournalEntryDocument, "writer"> & { writer?: string })[] = [
      ...docs,
      ...legacy.map(({ _id, org, repoKey, seq, uploadId, summary, appliedAt, journal }) => ({
        ...{ _id, org, repoKey, seq },
        upload: { uploadId, summary, appliedAt, ...journal! },
      })),
    ].sort((a, b) => a.seq - b.seq);
    const entries: JournalEntry[] = [];
    for (const doc of all) {
      if (doc.annotation) {
        entries.push({ seq: doc.seq, kind: "annotation", annotation: doc.annotation });
        continue;
      }
      const upload = doc.upload;
      if (upload === undefined) break;
      const { header, parts, first } = upload;
      const rest =
        parts > 1
          ? await this.parts.find(
              {
                org,
                repoKey,
                seq: doc.seq,
                writer: doc.writer === undefined ? { $exists: false } : doc.writer,
              },
              { sort: { part: 1 } },
            )
          : [];
      if (rest.length !== parts - 1) break;
      const what = `journal entry ${doc.seq} of ${org}/${repoKey}`;
      const runs = unpackItems<UploadEntry["runs"][number]>([first, ...rest.map((p) => p.data)], what);
      entries.push({
        seq: doc.seq,
        kind: "upload",
        entry: { ...header, runs },
        summary: upload.summary,
        appliedAt: upload.appliedAt,
      });
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
    // Another replica may be forgetting the same entries (a conflict on one it deleted first): try again.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.parts.deleteMany({ org, repoKey, seq: { $lte: throughSeq } });
        await this.entries.deleteMany({ org, repoKey, seq: { $lte: throughSeq } });
        break;
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= 3) throw error;
      }
    }
    await this.uploads.updateMany(
      { org, repoKey, seq: { $lte: throughSeq }, journal: { $exists: true } },
      { $unset: { journal: "", publishedEvents: "" } },
    );
  }

  /** Every repository with entries not yet in a snapshot, or only those of `org`. */
  async repositoriesWithEntries(org?: string): Promise<{ org: string; repoKey: string }[]> {
    const scope = org === undefined ? {} : { org };
    const [docs, legacy] = await Promise.all([
      // Positions start at 1 (the identity mark holds 0).
      this.entries.find({ ...scope, seq: { $gt: 0 } }, { projection: { org: 1, repoKey: 1 } }),
      this.uploads.find({ ...scope, journal: { $exists: true } }, { projection: { org: 1, repoKey: 1 } }),
    ]);
    return [...docs, ...legacy].map(({ org, repoKey }) => ({ org, repoKey }));
  }
}

function positionTaken(error: unknown, org: string, repoKey: string, seq: number): unknown {
  // The embedded store says AlreadyExists when it knew the position, Conflict when the bucket refused it.
  if (error instanceof AlreadyExistsError || error instanceof ConflictError) {
    return new JournalPositionTakenError(org, repoKey, seq);
  }
  return error;
}

function entryId(org: string, repoKey: string, seq: number): string {
  return `${org}\n${repoKey}\n${seq}`;
}

function uploadDocumentId(org: string, uploadId: string): string {
  return `${org}\n${uploadId}`;
}

function partId(org: string, repoKey: string, seq: number, writer: string, part: number): string {
  return `${org}\n${repoKey}\n${seq}\n${writer}\n${part}`;
}
