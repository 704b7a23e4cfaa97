import AsyncLock from "async-lock";

/**
 * Runs tasks one at a time per key, in call order; tasks under different keys
 * run concurrently. A failed task releases its key like a successful one.
 * async-lock keeps a queue per key and forgets the key once it is empty; its
 * limit of 1,000 waiting tasks per key is lifted, as nothing here may be refused.
 */
export class KeyedMutex {
  private readonly lock = new AsyncLock({ maxPending: Number.POSITIVE_INFINITY });

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return this.lock.acquire(key, task);
  }
}
