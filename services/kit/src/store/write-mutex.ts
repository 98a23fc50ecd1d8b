/**
 * Runs async sections one at a time, in call order. The embedded collection holds it around
 * every write so that the revision a write compares against is the one the previous write
 * produced, and a read issued after an acknowledged write sees it.
 */
export class WriteMutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<R>(section: () => Promise<R>): Promise<R> {
    const result = this.tail.then(section);
    // A failed section must not block the ones queued after it.
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every section queued so far has finished. */
  async idle(): Promise<void> {
    await this.run(() => Promise.resolve());
  }
}
