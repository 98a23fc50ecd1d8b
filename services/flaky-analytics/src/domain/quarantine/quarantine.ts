import { type QuarantineOverride as ApiQuarantineOverride } from "@mainline/contract";
import type { TestStatusValue } from "../status/test-status.js";

/** A per-test decision that beats the automatic one; no override means "auto". */
export type QuarantineOverride = Exclude<ApiQuarantineOverride, "NONE">;

export interface QuarantineSettings {
  quarantiningEnabled: boolean;
  autoQuarantineEnabled: boolean;
}

export const DEFAULT_QUARANTINE_SETTINGS: Readonly<QuarantineSettings> = Object.freeze({
  quarantiningEnabled: false,
  autoQuarantineEnabled: false,
});

/**
 * The spec's rule: quarantined when quarantining is enabled for the repository and either the
 * override is ALWAYS_QUARANTINE, or auto-quarantine is on and the test is flaky or broken.
 * NEVER_QUARANTINE takes the test out of the automatic rule.
 */
export function isQuarantined(
  settings: QuarantineSettings,
  override: QuarantineOverride | undefined,
  status: TestStatusValue,
): boolean {
  if (!settings.quarantiningEnabled) return false;
  if (override === "ALWAYS_QUARANTINE") return true;
  if (override === "NEVER_QUARANTINE") return false;
  return settings.autoQuarantineEnabled && (status === "flaky" || status === "broken");
}

/** The answer of get-quarantine-config: what a CI wrapper needs to decide the job's exit code. */
export interface QuarantineConfig {
  isDisabled: boolean;
  testIds: string[];
}

export interface QuarantineCandidate {
  id: string;
  status: TestStatusValue;
  override?: QuarantineOverride | undefined;
}

export function quarantineConfig(
  settings: QuarantineSettings,
  tests: Iterable<QuarantineCandidate>,
): QuarantineConfig {
  if (!settings.quarantiningEnabled) return { isDisabled: true, testIds: [] };
  const testIds: string[] = [];
  for (const test of tests) if (isQuarantined(settings, test.override, test.status)) testIds.push(test.id);
  // Sorted so that two calls over the same tests answer byte-for-byte the same.
  return { isDisabled: false, testIds: testIds.sort() };
}
