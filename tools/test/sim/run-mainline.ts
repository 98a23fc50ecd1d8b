import { runCli } from "@mainline/cli-src";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `mainline ARGV` in this process, with no server and no environment: what simulate needs. */
export async function mainline(...argv: string[]): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: {},
    cwd: process.cwd(),
    childStdio: "pipe",
  });
  return { code, stdout, stderr };
}
