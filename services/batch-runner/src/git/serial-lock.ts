/**
 * Runs tasks one at a time per key, in arrival order, within this process. Git takes its own
 * lock files, but two fetches or worktree changes racing on one repository fail on them (or, for
 * packed refs, lose an update), so every job on a repository waits its turn here.
 */
export class SerialLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      // Forget the key once nobody queued behind us, so the map does not grow with every remote.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
