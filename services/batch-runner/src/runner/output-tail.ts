/** Keeps only the last `limitBytes` of a stream, so a chatty test command cannot exhaust memory. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private truncated = false;

  constructor(private readonly limitBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limitBytes && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.limitBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
      this.truncated = true;
    }
  }

  toString(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    // A cut may split a multi-byte character; drop the replacement character it leaves.
    return this.truncated ? text.replace(/^\uFFFD+/, "") : text;
  }
}
