import { createHash } from "node:crypto";
import { mkdir, readlink, rm, symlink } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

/** The link in the data dir that says where its batch-runner work dir is. */
export const WORK_DIR_LINK = "batch-runner-work-dir";

/**
 * Where the batch-runner of the system whose data lives in `dataDir` keeps its mirrors and test worktrees:
 * one folder per instance (keyed by its data dir), so two `make dev` or a test system beside `make dev` never
 * share one. Under the OS temp dir, not under the data dir: a data dir in the checkout (.data/) would put the
 * worktrees inside Mainline's own project, and a repository without its own package.json would inherit
 * Mainline's ("type": "module"), its tsconfig and the like, and its tests would not behave as in a clean clone.
 */
export function batchRunnerWorkDir(dataDir: string): string {
  const resolved = path.resolve(dataDir);
  const key = createHash("sha256").update(resolved).digest("hex").slice(0, 12);
  const name = path.basename(resolved).replace(/[^A-Za-z0-9_.-]/g, "_");
  return path.join(tmpdir(), `mainline-${userInfo().username}`, `${name}-${key}`, "batch-runner");
}

/** Makes the instance's work dir and points `<dataDir>/batch-runner-work-dir` at it; returns it. */
export async function prepareBatchRunnerWorkDir(dataDir: string): Promise<string> {
  const workDir = batchRunnerWorkDir(dataDir);
  await mkdir(workDir, { recursive: true });
  const link = path.join(dataDir, WORK_DIR_LINK);
  const current = await readlink(link).catch(() => undefined);
  if (current !== workDir) {
    await rm(link, { force: true });
    await symlink(workDir, link);
  }
  return workDir;
}
