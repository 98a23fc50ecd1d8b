import { assertBranchName } from "./ref-names.js";
import type { RepositoryCache } from "./repository-cache.js";

/**
 * Deletes test branches from the remote (and the mirror's copies) once their runs are over.
 * Branches already gone are skipped, so a redelivered cleanup succeeds. Returns those deleted.
 */
export async function deleteTestBranches(
  cache: RepositoryCache,
  remoteUrl: string,
  testBranches: readonly string[],
  credentialsSecretName = "",
  githubInstallationId?: number,
): Promise<string[]> {
  for (const branch of testBranches) assertBranchName("testBranches", branch);
  if (testBranches.length === 0) return [];
  const mirror = await cache.open(remoteUrl, credentialsSecretName, githubInstallationId);
  return mirror.exclusive(async () => {
    const deleted = await mirror.deleteRemoteRefs(testBranches.map((branch) => `refs/heads/${branch}`));
    return deleted.map((ref) => ref.slice("refs/heads/".length));
  });
}
