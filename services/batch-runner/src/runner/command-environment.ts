import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The only variables a test command inherits from the batch-runner. Test commands are untrusted PR
 * code: the runner's own environment holds service addresses, bus and database credentials and (under
 * `make dev`) an admin API token, so nothing reaches the command unless it is named here.
 */
export const INHERITED_VARIABLES: readonly string[] = ["PATH", "LANG", "LC_ALL", "TZ"];

/** A run's private HOME and TMPDIR, outside the worktree so the command's caches never dirty it. */
export interface RunArea {
  readonly home: string;
  readonly tmp: string;
  remove(): Promise<void>;
}

export async function createRunArea(): Promise<RunArea> {
  const root = await mkdtemp(join(tmpdir(), "mainline-run-"));
  const home = join(root, "home");
  const tmp = join(root, "tmp");
  await Promise.all([mkdir(home), mkdir(tmp)]);
  return { home, tmp, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * The environment of a test command: the allow-listed host variables, a HOME and TMPDIR of its own
 * (the runner's HOME may hold git credentials or ssh keys), CI=true, then the run's own variables.
 * The run's variables cannot replace an inherited variable, HOME, TMPDIR or CI.
 */
export function commandEnvironment(
  area: Pick<RunArea, "home" | "tmp">,
  runVariables: Readonly<Record<string, string>> = {},
  host: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = { ...runVariables, LANG: "C.UTF-8" };
  for (const name of INHERITED_VARIABLES) {
    const value = host[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, HOME: area.home, TMPDIR: area.tmp, CI: "true" };
}
