/** A PR in a queue as getQueue lists it (the queue page, its pending failures and the PR page read it). */
export interface EnqueuedPullRequest {
  id: string;
  state: string;
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  noBatch: boolean;
  prNumber: number;
  prTitle: string;
  prAuthor: string;
  testRunId?: string;
  /** Best case, from the PR's place and the queue's recent run durations; absent until a run finished. */
  estimatedMergeAt?: string;
  /** The planner's batch of the PR, its status and its lane; absent until it is in a batch. */
  batchId?: string;
  batchStatus?: string;
  lane?: string;
}
