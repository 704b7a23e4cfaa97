/**
 * How far one chunk fills each redo log: the primary's and each replica's.
 * A throttle that reads a log's fill before each chunk and holds only once it
 * reads over the limit lets the log pass the limit by whatever the next chunk
 * writes. Each log's step is its net rise (redo written less redo flushed)
 * between the readings taken before two chunks, per chunk run in between; a
 * reading taken while the cleanup waits changes the fill but not the step.
 */
export interface RedoSteps {
  /** Records `log`'s fill, in percent, before a chunk; answers the fill one more chunk is expected to reach. */
  next(log: string, percent: number): number;
  /** A chunk ran. */
  chunkRan(): void;
}

export function createRedoSteps(): RedoSteps {
  let chunks = 0;
  const logs = new Map<
    string,
    { readonly percent: number; readonly atChunk: number; readonly step: number }
  >();
  return {
    next(log, percent) {
      const last = logs.get(log);
      const ran = last === undefined ? 0 : chunks - last.atChunk;
      const step = last === undefined ? 0 : ran > 0 ? Math.max(0, (percent - last.percent) / ran) : last.step;
      logs.set(log, { percent, atChunk: chunks, step });
      return percent + step;
    },
    chunkRan() {
      chunks += 1;
    },
  };
}
