/** The job name flaky-analytics shows for results of the merge queue's own runs (command or external CI). */
export const MERGE_QUEUE_JOB_NAME = "mainline-merge-queue";
