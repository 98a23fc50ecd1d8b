import { parseSettingOverrides } from "@mainline/sim";

/**
 * `--set NAME=VALUE` (repeatable, as in `mainline simulate`): queue settings laid over every workload's own, to
 * compare a setting on the same loads, e.g. `--set bisectionMode=STACKED`.
 */
export function settingOverrides(argv: readonly string[]): Record<string, unknown> {
  return parseSettingOverrides(argv.flatMap((arg, i) => (arg === "--set" ? [argv[i + 1] ?? ""] : [])));
}
