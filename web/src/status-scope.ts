/**
 * What a test's status is judged on, said next to its failure rate: the status rules read runs on the default
 * branch and in the merge queue only, while the failure rate counts every run (PR branches included), so a test
 * failing every PR-branch run can rightly be "healthy".
 */
export const STATUS_SCOPE = "status judged on the default branch and the merge queue";
export const RATE_SCOPE = "failure rate over every run, PR branches included";
