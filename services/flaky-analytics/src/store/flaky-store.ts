import type { Store } from "@mainline/kit/store/index";
import { FailureHourRepository } from "./failure-hour-repository.js";
import { RepositorySettingsRepository } from "./repository-settings-repository.js";
import { TestRepository } from "./test-repository.js";
import { UploadRepository } from "./upload-repository.js";

/** Every collection of the flaky-analytics database, with its indexes declared. */
export interface FlakyStore {
  tests: TestRepository;
  failureHours: FailureHourRepository;
  repositories: RepositorySettingsRepository;
  uploads: UploadRepository;
}

export async function openFlakyStore(store: Store): Promise<FlakyStore> {
  return {
    tests: await TestRepository.open(store),
    failureHours: await FailureHourRepository.open(store),
    repositories: RepositorySettingsRepository.open(store),
    uploads: UploadRepository.open(store),
  };
}
