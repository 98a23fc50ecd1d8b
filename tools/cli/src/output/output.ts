import type { CliIo } from "../cli-io.js";

/**
 * Where a command's words go. The result goes to stdout, as JSON with --json (for scripts) or as text; notes
 * and progress go to stderr, so `mainline ... --json | jq` sees only the result.
 */
export class Output {
  constructor(
    private readonly io: CliIo,
    readonly json: boolean,
  ) {}

  result(json: unknown, human: () => string | readonly string[]): void {
    if (this.json) {
      this.io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return;
    }
    const text = human();
    const lines = typeof text === "string" ? [text] : text;
    if (lines.length > 0) this.io.stdout.write(`${lines.join("\n")}\n`);
  }

  note(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }
}
