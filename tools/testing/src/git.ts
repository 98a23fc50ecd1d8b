import { execFileSync } from "node:child_process";

/**
 * Runs the real git CLI as a developer would (a fixed author and committer), for tests that build real
 * repositories and remotes; returns trimmed stdout and throws with git's stderr when it fails.
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Dev",
      GIT_AUTHOR_EMAIL: "dev@example.com",
      GIT_COMMITTER_NAME: "Dev",
      GIT_COMMITTER_EMAIL: "dev@example.com",
    },
  }).trim();
}
