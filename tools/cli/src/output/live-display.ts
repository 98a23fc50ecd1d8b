import type { TextSink } from "../cli-io.js";

/** One picture of something that changes while the CLI waits. */
export interface Frame {
  /** Shown on a terminal only: it changes every tick (elapsed time), which would flood a log. */
  title: string;
  /** One line per thing watched; `key` tells rows apart so a log gets a line only when a row changes. */
  rows: readonly { key: string; line: string }[];
}

const CLEAR_TO_END = "\u001b[J";
const cursorUp = (lines: number) => (lines > 0 ? `\u001b[${lines}F` : "");

/**
 * A progress display for anything that waits. On a terminal the frame is redrawn in place; anywhere else (a
 * CI log, a pipe) each row is printed when it changes, prefixed by the seconds elapsed.
 */
export class LiveDisplay {
  private drawnLines = 0;
  private readonly printed = new Map<string, string>();
  private readonly startedAt = Date.now();

  constructor(private readonly sink: TextSink) {}

  get live(): boolean {
    return this.sink.isTTY === true;
  }

  show(frame: Frame): void {
    if (this.live) this.redraw(frame);
    else this.printChanges(frame);
  }

  /** A message above the picture (on a terminal the frame is erased and redrawn under it at the next show). */
  note(line: string): void {
    this.sink.write(`${this.live ? `${cursorUp(this.drawnLines)}${CLEAR_TO_END}` : ""}${line}\n`);
    this.drawnLines = 0;
  }

  /** Leaves the last frame on screen; later output starts below it. */
  finish(): void {
    this.drawnLines = 0;
  }

  private redraw(frame: Frame): void {
    const width = Math.max(20, this.sink.columns ?? 100);
    // A wrapped line would occupy two rows and break the cursor arithmetic, so lines are cut to the width.
    const lines = [frame.title, ...frame.rows.map((row) => row.line)].map((line) =>
      line.length >= width ? `${line.slice(0, width - 2)}…` : line,
    );
    this.sink.write(`${cursorUp(this.drawnLines)}${CLEAR_TO_END}${lines.join("\n")}\n`);
    this.drawnLines = lines.length;
  }

  private printChanges(frame: Frame): void {
    const seconds = Math.round((Date.now() - this.startedAt) / 1000);
    for (const row of frame.rows) {
      if (this.printed.get(row.key) === row.line) continue;
      this.printed.set(row.key, row.line);
      this.sink.write(`[${String(seconds).padStart(4)}s] ${row.line}\n`);
    }
  }
}
