import { z } from "zod";

/** Raised when the environment does not fit a service's schema; the message is one line per variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
  }
}

/**
 * Parses the environment once against a service's zod schema. Each problem names the variable and the
 * expected form, e.g. `GRPC_PORT: expected an integer from 1 to 65535 (got "abc")`.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.join(".");
    const got = env[name];
    const shown = got === undefined ? "unset" : `got ${JSON.stringify(got)}`;
    return `${name}: ${issue.message} (${shown})`;
  });
  throw new ConfigError(problems);
}

/** For main(): parse or exit non-zero with one line per bad variable, before anything starts. */
export function loadConfigOrExit<S extends z.ZodType>(serviceName: string, schema: S): z.infer<S> {
  try {
    return loadConfig(schema);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems)
      process.stderr.write(`${serviceName}: bad configuration: ${problem}\n`);
    process.exit(2);
  }
}
