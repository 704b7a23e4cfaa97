/**
 * Where a replica's lag is heading. A throttle that stops deleting once the
 * lag reads over its limit stops too late: the chunks already committed are
 * still in the replica's relay log, and while it applies them the lag keeps
 * growing. If the lag rises by s seconds every second while the cleanup runs,
 * the replica applies the primary's work at a = 1 - s of the speed it was
 * written. A heartbeat's lag L places the replica at the last heartbeat it
 * applied, but the chunk it is applying began up to a chunk's length d
 * earlier, so what it still has to apply was written over about L + d; one
 * more chunk adds s × d to that, and it all takes 1 / a times as long to
 * apply: the lag heads for (L + (1 + s) × d) / a. The forecast is that peak,
 * with s the lag's slope over the last few seconds since the replica last
 * caught up.
 */
export interface LagForecast {
  /** Records a replica's lag now and answers the lag it will reach if one more chunk like the last runs. */
  peak(replica: string, seconds: number): number;
  /** Records how long the last chunk kept the primary busy. */
  chunkRan(ms: number): void;
}

export interface LagForecastOptions {
  /** Milliseconds on a monotonic clock; performance.now by default. */
  readonly now?: () => number;
}

/** Samples older than this no longer count towards the slope. */
const WINDOW_MS = 3_000;
/** The slope needs at least this many samples, this far apart. */
const MIN_SAMPLES = 3;
const MIN_SPAN_MS = 300;
/**
 * A replica that applies less than a tenth as fast as the primary writes is
 * judged as if it applied a tenth: the forecast stays finite, and at ten
 * times the lag it already holds the cleanup well before any usual limit.
 */
const SLOWEST_APPLY = 0.1;

interface Sample {
  readonly at: number;
  readonly seconds: number;
}

export function createLagForecast(options: LagForecastOptions = {}): LagForecast {
  const now = options.now ?? (() => performance.now());
  const samples = new Map<string, Sample[]>();
  let chunkSeconds = 0;

  function recent(replica: string, seconds: number): Sample[] {
    const at = now();
    const kept = (samples.get(replica) ?? []).filter((sample) => at - sample.at <= WINDOW_MS);
    kept.push({ at, seconds });
    // Once the replica has caught up (its lag fell by more than half), the
    // rise before says nothing of the next one: the slope counts from there.
    let start = 0;
    for (let index = 1; index < kept.length; index += 1) {
      if ((kept[index]?.seconds ?? 0) < (kept[index - 1]?.seconds ?? 0) / 2) start = index;
    }
    const rising = kept.slice(start);
    samples.set(replica, rising);
    return rising;
  }

  return {
    peak(replica, seconds) {
      const rise = slope(recent(replica, seconds));
      if (rise <= 0) return seconds;
      const apply = Math.max(1 - rise, SLOWEST_APPLY);
      return (seconds + (2 - apply) * chunkSeconds) / apply;
    },
    chunkRan(ms) {
      chunkSeconds = Math.max(ms, 0) / 1000;
    },
  };
}

/** The least-squares slope of the lag over time (seconds of lag a second), 0 with too few samples. */
function slope(samples: readonly Sample[]): number {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (!first || !last || samples.length < MIN_SAMPLES || last.at - first.at < MIN_SPAN_MS) return 0;
  const meanAt = samples.reduce((sum, sample) => sum + sample.at, 0) / samples.length;
  const meanLag = samples.reduce((sum, sample) => sum + sample.seconds, 0) / samples.length;
  let covariance = 0;
  let variance = 0;
  for (const sample of samples) {
    covariance += (sample.at - meanAt) * (sample.seconds - meanLag);
    variance += (sample.at - meanAt) ** 2;
  }
  return (covariance / variance) * 1000;
}
