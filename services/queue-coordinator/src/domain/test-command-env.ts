import { InvalidArgumentError } from "@mainline/kit/errors/index";

export const MAX_TEST_COMMAND_VARIABLES = 64;
export const MAX_TEST_COMMAND_VALUE_BYTES = 4096;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** What the batch-runner sets itself; a repository cannot replace them. */
const RUNNER_SET = new Set(["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "CI"]);
/**
 * Names of Mainline's own settings. The command never sees the runner's values of these; refusing the
 * names keeps a repository from posing as Mainline (MAINLINE_TEST_RUN_ID) or confusing its readers.
 */
const MAINLINE_PREFIXES = ["NATS_", "MONGODB_", "DEV_", "MAINLINE_", "BATCH_RUNNER_"];

/**
 * Checks the variables a repository declares for its test command. Throws InvalidArgumentError naming
 * `runner.env` or `runner.env.<NAME>` and the rule.
 */
export function assertTestCommandEnv(env: Readonly<Record<string, string>>): void {
  const names = Object.keys(env);
  if (names.length > MAX_TEST_COMMAND_VARIABLES)
    throw new InvalidArgumentError("runner.env", `must have at most ${MAX_TEST_COMMAND_VARIABLES} variables`);
  for (const name of names) {
    const field = `runner.env.${name}`;
    if (!NAME.test(name))
      throw new InvalidArgumentError(
        "runner.env",
        `variable names must match ${NAME.source} (got ${JSON.stringify(name.slice(0, 140))})`,
      );
    const upper = name.toUpperCase();
    if (RUNNER_SET.has(upper))
      throw new InvalidArgumentError(
        field,
        "is set by the runner (PATH, HOME, TMPDIR, LANG, LC_ALL, TZ, CI)",
      );
    if (MAINLINE_PREFIXES.some((prefix) => upper.startsWith(prefix)) || upper.endsWith("_ADDR"))
      throw new InvalidArgumentError(
        field,
        "is reserved for Mainline (NATS_*, MONGODB_*, DEV_*, MAINLINE_*, BATCH_RUNNER_*, *_ADDR)",
      );
    const value = env[name] ?? "";
    if (new TextEncoder().encode(value).length > MAX_TEST_COMMAND_VALUE_BYTES)
      throw new InvalidArgumentError(field, `must be at most ${MAX_TEST_COMMAND_VALUE_BYTES} bytes`);
    if (value.includes("\0")) throw new InvalidArgumentError(field, "must not contain a NUL character");
  }
}
