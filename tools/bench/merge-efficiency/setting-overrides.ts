/**
 * `--set NAME=VALUE` (repeatable, as in `mainline simulate`): queue settings laid over every workload's own, to
 * compare a setting on the same loads, e.g. `--set bisectionMode=ISOLATED`. A value is read as JSON when it
 * parses (numbers, true/false) and as a word otherwise.
 */
export function settingOverrides(argv: readonly string[]): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  argv.forEach((arg, i) => {
    if (arg !== "--set") return;
    const pair = argv[i + 1] ?? "";
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new Error(`--set: "${pair}" is not NAME=VALUE (e.g. --set bisectionMode=ISOLATED)`);
    overrides[pair.slice(0, eq)] = parseValue(pair.slice(eq + 1));
  });
  return overrides;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
