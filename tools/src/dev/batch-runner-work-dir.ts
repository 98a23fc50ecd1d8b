import { tmpdir, userInfo } from "node:os";
import path from "node:path";

/**
 * Where `make dev`'s batch-runner keeps its mirrors and test worktrees: under the OS temp dir, per OS
 * user. Not under .data/ in the checkout: a worktree there sits inside Mainline's own project, and a
 * repository without its own package.json would inherit Mainline's ("type": "module"), its tsconfig and
 * the like, and its tests would not behave as in a clean clone.
 */
export function defaultBatchRunnerWorkDir(): string {
  return path.join(tmpdir(), `mainline-${userInfo().username}`, "batch-runner");
}
