import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { CliError } from "../cli-error.js";

const run = promisify(execFile);
const CHECK_TIMEOUT_MS = 20_000;

/**
 * Asks the remote for its refs with `git ls-remote`, as the batch-runner will before its first test run, so a
 * typo in --remote is refused now rather than found as a failed PR later. Never prompts for credentials.
 */
export async function checkRemoteExists(remoteUrl: string, cwd: string): Promise<void> {
  try {
    await run("git", ["ls-remote", "--heads", remoteUrl], {
      cwd,
      encoding: "utf8",
      timeout: CHECK_TIMEOUT_MS,
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" },
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    const said = stderr.trim().split("\n").filter(Boolean).pop() ?? (error as Error).message;
    throw new CliError(
      `--remote ${remoteUrl}: git ls-remote cannot read it (${said}). Check the URL; ` +
        "--no-check connects it anyway (a remote only Mainline's servers can reach, or one needing their credentials)",
    );
  }
}
