import { createHash } from "node:crypto";

/**
 * The planner numbers runs and merges per queue (run-1, run-2, ...). Outside the queue they need ids that stay
 * unique even when a queue is deleted and created again (and use only characters git ref names and the
 * batch-runner accept: letters, digits, '-' and '_'), because the batch-runner is idempotent by id (a
 * recreated queue's run-1 must not find the old run-1's test branch). The suffix is fixed per queue incarnation.
 */
export function incarnation(queueKey: string, createdAt: string): string {
  return createHash("sha256").update(`${queueKey}@${createdAt}`).digest("hex").slice(0, 10);
}

export function globalId(localId: string, queueIncarnation: string): string {
  return `${localId}_${queueIncarnation}`;
}

/** The planner's id back from a global one; undefined when it belongs to another queue incarnation. */
export function localId(global: string, queueIncarnation: string): string | undefined {
  const dot = global.lastIndexOf("_");
  if (dot < 0 || global.slice(dot + 1) !== queueIncarnation) return undefined;
  return global.slice(0, dot);
}

export function testBranchName(targetBranch: string, globalRunId: string): string {
  return `mainline/test/${targetBranch}/${globalRunId}`;
}
