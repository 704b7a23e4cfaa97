/**
 * Runs tasks one at a time per key, in call order; tasks under different keys
 * run concurrently. A failed task releases its key like a successful one.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release = () => {};
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      // Forget the key once nobody queued behind this task, so the map stays small.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
