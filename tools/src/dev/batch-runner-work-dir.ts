import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readlink, rm, symlink } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

/** The link in the data dir that says where its batch-runner work dir is, when it is not inside it. */
export const WORK_DIR_LINK = "batch-runner-work-dir";

/** The package.json Node would apply to a file in `dir`: the nearest one above it, if any. */
export function enclosingPackageJson(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, "package.json"))) return path.join(at, "package.json");
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * Where the batch-runner of the system whose data lives in `dataDir` keeps its mirrors and test worktrees: one
 * folder per instance, so two `make dev` or a test system beside `make dev` never share one. Inside the data dir
 * when that is outside any project (a test's temp dir, a DEV_DATA_DIR elsewhere): removing the data dir removes
 * it. Otherwise (the checkout's .data/) under the OS temp dir, keyed by the data dir: a worktree inside
 * Mainline's own project would inherit its package.json ("type": "module"), its tsconfig and the like, and a
 * repository's tests would not behave as in a clean clone.
 */
export function batchRunnerWorkDir(dataDir: string): string {
  const resolved = path.resolve(dataDir);
  if (enclosingPackageJson(resolved) === undefined) return path.join(resolved, "batch-runner");
  const key = createHash("sha256").update(resolved).digest("hex").slice(0, 12);
  const name = path.basename(resolved).replace(/[^A-Za-z0-9_.-]/g, "_");
  return path.join(tmpdir(), `mainline-${userInfo().username}`, `${name}-${key}`, "batch-runner");
}

/** Makes the instance's work dir and, when it is not inside the data dir, points `<dataDir>/batch-runner-work-dir` at it. */
export async function prepareBatchRunnerWorkDir(dataDir: string): Promise<string> {
  const workDir = batchRunnerWorkDir(dataDir);
  await mkdir(workDir, { recursive: true });
  if (path.dirname(workDir) === path.resolve(dataDir)) return workDir;
  const link = path.join(dataDir, WORK_DIR_LINK);
  const current = await readlink(link).catch(() => undefined);
  if (current !== workDir) {
    await rm(link, { force: true });
    await symlink(workDir, link);
  }
  return workDir;
}
