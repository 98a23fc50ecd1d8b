/** Where a code host keeps a pull request's head (GitHub's layout); a repository connection may name another. */
export const DEFAULT_PULL_REF_PATTERN = "refs/pull/{number}/head";
