import type { Store } from "@mainline/kit/store/index";
import { RepositorySettingsRepository } from "./repository-settings-repository.js";
import { TestAnnotations } from "./test-annotations.js";
import { TestSnapshots } from "./test-snapshots.js";
import { UploadJournal } from "./upload-journal.js";

/** Every collection of the flaky-analytics database, with its indexes declared (layout: documents.ts). */
export interface FlakyStore {
  uploads: UploadJournal;
  snapshots: TestSnapshots;
  annotations: TestAnnotations;
  repositories: RepositorySettingsRepository;
}

export async function openFlakyStore(store: Store): Promise<FlakyStore> {
  return {
    uploads: await UploadJournal.open(store),
    snapshots: await TestSnapshots.open(store),
    annotations: await TestAnnotations.open(store),
    repositories: RepositorySettingsRepository.open(store),
  };
}
