import type { Collection, Store } from "@mainline/kit/store/index";
import type { UploadDocument, UploadSummary } from "./documents.js";

/** Which uploads were applied: an upload id seen before changes nothing. */
export class UploadRepository {
  private constructor(private readonly uploads: Collection<UploadDocument>) {}

  static open(store: Store): UploadRepository {
    return new UploadRepository(store.collection<UploadDocument>("uploads"));
  }

  find(org: string, uploadId: string): Promise<UploadDocument | null> {
    return this.uploads.findOne({ _id: `${org}\n${uploadId}` });
  }

  async record(org: string, repoKey: string, uploadId: string, summary: UploadSummary, at: number) {
    await this.uploads.replaceOne(
      { _id: `${org}\n${uploadId}` },
      { org, repoKey, uploadId, appliedAt: at, summary },
      { upsert: true },
    );
  }
}
