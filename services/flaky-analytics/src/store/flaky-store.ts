import type { JetStreamClient } from "nats";
import type { Replication } from "@mainline/kit/bus/index";
import type { Store } from "@mainline/kit/store/index";
import { JournalHeads } from "./journal-heads.js";
import { RepositorySettingsRepository } from "./repository-settings-repository.js";
import { TestAnnotations } from "./test-annotations.js";
import { TestSnapshots } from "./test-snapshots.js";
import { UploadJournal } from "./upload-journal.js";

/** Every collection of the flaky-analytics database, with its indexes declared (layout: documents.ts). */
export interface FlakyStore {
  uploads: UploadJournal;
  heads: JournalHeads;
  snapshots: TestSnapshots;
  annotations: TestAnnotations;
  repositories: RepositorySettingsRepository;
}

export interface FlakyStoreOptions {
  /** The journal heads' key-value bucket (JOURNAL_HEADS_BUCKET unless a test keeps its own). */
  headsBucket?: string;
  /** NATS_REPLICAS for the heads bucket (raised when found with fewer). */
  replication?: Replication;
}

export async function openFlakyStore(
  store: Store,
  js: JetStreamClient,
  options: FlakyStoreOptions = {},
): Promise<FlakyStore> {
  const uploads = await UploadJournal.open(store);
  return {
    uploads,
    heads: await JournalHeads.open(js, await uploads.identity(), options),
    snapshots: await TestSnapshots.open(store),
    annotations: await TestAnnotations.open(store),
    repositories: RepositorySettingsRepository.open(store),
  };
}
