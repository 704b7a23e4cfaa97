/**
 * A pace set as a share of the server's time, the way gh-ost's nice ratio
 * works: work that kept the server busy for t ms is followed by a rest of
 * `ratio` × t ms before the next. Ratio 1 leaves the server alone half the
 * time the archiver runs; 0 never rests. The rest is owed, not slept at once:
 * whatever else happened since (a throttle's wait, the queue's delivery of
 * the next task) counts towards it, so a pace shared by consecutive tasks
 * costs nothing when the tasks are already far apart.
 */
export interface NicePace {
  readonly ratio: number;
  /** Milliseconds on the pace's monotonic clock. */
  now(): number;
  /** Waits off what the last work left owing; resolves with the milliseconds waited. */
  rest(): Promise<number>;
  /** Records work that just ended and kept the server busy for `ms`. */
  worked(ms: number): void;
}

export interface NicePaceOptions {
  /** Rest per unit of work (0 to 100). */
  readonly ratio: number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Milliseconds on a monotonic clock; performance.now by default. */
  readonly now?: () => number;
}

export function createNicePace(options: NicePaceOptions): NicePace {
  const now = options.now ?? (() => performance.now());
  let restUntil = Number.NEGATIVE_INFINITY;
  const pace: NicePace = {
    ratio: options.ratio,
    now,
    async rest() {
      const owed = Math.round(restUntil - now());
      if (owed <= 0) return 0;
      await options.sleep(owed);
      return owed;
    },
    worked(ms) {
      if (options.ratio <= 0 || ms <= 0) return;
      restUntil = Math.max(restUntil, now() + options.ratio * ms);
    },
  };
  return pace;
}

/**
 * Paces a stream of batches. A copy's source keeps sending while the
 * consumer writes the batch before (it reads ahead, up to its buffer), so the
 * work of one batch is the whole cycle: from asking for it, through writing
 * it, to asking for the next. Each cycle is followed by its rest.
 */
export async function* paceBatches<T>(batches: AsyncIterable<T>, pace: NicePace): AsyncGenerator<T> {
  if (pace.ratio <= 0) {
    yield* batches;
    return;
  }
  const iterator = batches[Symbol.asyncIterator]();
  try {
    for (;;) {
      const started = pace.now();
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
      pace.worked(pace.now() - started);
      await pace.rest();
    }
  } finally {
    await iterator.return?.();
  }
}
