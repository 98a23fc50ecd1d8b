/**
 * How `make dev` shows a service's log line: pino's JSON made readable (time, level, message, fields), the
 * per-request access lines of successful requests left out, and an error's stack only when it is an error
 * (a retried call at start, such as metrics asking a coordinator that is not up yet, is one line).
 * DEV_LOG_FORMAT=json keeps the raw lines; DEV_LOG_REQUESTS=1 shows every request.
 */
export interface DevLogOptions {
  readonly json: boolean;
  readonly requests: boolean;
}

export function devLogOptions(env: NodeJS.ProcessEnv): DevLogOptions {
  return { json: env.DEV_LOG_FORMAT === "json", requests: env.DEV_LOG_REQUESTS === "1" };
}

const LEVELS: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};
/** Fields every line has, or that only tie the line to a trace: not worth a terminal's width. */
const OMITTED = new Set(["level", "time", "service", "msg", "pid", "hostname", "trace_id", "span_id", "err"]);

/** The line to print for one output line of a service (`[name] ...`), or undefined to print nothing. */
export function devLogLine(line: string, options: DevLogOptions): string | undefined {
  if (options.json) return line;
  const match = /^\[([\w-]+)\] (\{.*\})$/.exec(line);
  if (!match) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(match[2]!) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = typeof entry.level === "number" ? entry.level : 30;
  if (entry.msg === "request") return requestLine(match[1]!, entry, options);
  const fields = Object.entries(entry)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const lines = [
    `${prefix(match[1]!, entry, level)}${typeof entry.msg === "string" ? entry.msg : JSON.stringify(entry.msg ?? "")}` +
      (err?.message ? `: ${err.message.trim()}` : "") +
      (fields.length > 0 ? `  ${fields.join(" ")}` : ""),
  ];
  if (level >= 50 && err?.stack)
    lines.push(
      ...err.stack
        .split("\n")
        .slice(1)
        .map((l) => `    ${l.trim()}`),
    );
  return lines.join("\n");
}

function prefix(service: string, entry: Record<string, unknown>, level: number): string {
  const time = typeof entry.time === "string" ? entry.time.slice(11, 19) : "";
  return `[${service}] ${time} ${(LEVELS[level] ?? String(level)).padEnd(5)} `;
}

/** An access line: only failures, unless every request was asked for. */
function requestLine(
  service: string,
  entry: Record<string, unknown>,
  options: DevLogOptions,
): string | undefined {
  const status = Number(entry.status);
  if (!options.requests && status < 400) return undefined;
  return `${prefix(service, entry, status >= 500 ? 50 : status >= 400 ? 40 : 30)}${String(entry.method)} ${String(entry.path)} → ${status} (${String(entry.duration_ms)} ms)`;
}
