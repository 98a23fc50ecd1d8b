import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The output of a read-only git command in `cwd`, or undefined when git fails (not a repository, no such ref). */
export async function gitOutput(cwd: string, ...args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run("git", args, { cwd, encoding: "utf8" });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

export function commitOf(cwd: string, revision: string): Promise<string | undefined> {
  return gitOutput(cwd, "rev-parse", "--verify", "--quiet", `${revision}^{commit}`);
}

/** undefined on a detached HEAD (CI checkouts often are): the caller asks for --branch then. */
export async function currentBranch(cwd: string): Promise<string | undefined> {
  const name = await gitOutput(cwd, "rev-parse", "--abbrev-ref", "HEAD");
  return name === "HEAD" ? undefined : name;
}
