import { RATE_CAP_CATCH_UP_MS, type RateCap } from "../../ports/rate-cap";

/** Waits before working rows, so that a table's rows a second stay within its cap across every worker. */
export type RowsPace = (rows: number) => Promise<number>;

/**
 * The pace of a table's shared rate cap: `rows` are reserved in the store
 * (RateCap) and the caller waits its turn; resolves with the milliseconds
 * waited. Without a cap (0 or undefined) it never waits.
 */
export function rateCapPace(
  cap: RateCap | undefined,
  key: string,
  perSecond: number | undefined,
  sleep: (ms: number) => Promise<void>,
): RowsPace {
  if (!cap || !perSecond) return async () => 0;
  return async (rows) => {
    const waitMs = await cap.reserve(key, rows, perSecond);
    if (waitMs > 0) await sleep(waitMs);
    return Math.max(0, waitMs);
  };
}

/**
 * The most rows one unit of work may take under a cap: 0.4 s worth. The
 * units that start in any one second have their turns within that second
 * and the catch-up allowance after it (RATE_CAP_CATCH_UP_MS, 0.1 s), and the
 * last of them may be a whole unit: no single second holds more than one and
 * a half times the cap however the units fall. All of `rows` without a cap.
 */
export function cappedRows(rows: number, perSecond: number | undefined): number {
  if (!perSecond) return rows;
  const unitSeconds = 0.5 - RATE_CAP_CATCH_UP_MS / 1000;
  return Math.max(1, Math.min(rows, Math.floor(perSecond * unitSeconds)));
}

/** Batches of rows, each let through once its rows have their turn under the table's cap. */
export async function* capBatches<T extends { readonly length: number }>(
  batches: AsyncIterable<T>,
  pace: RowsPace,
): AsyncGenerator<T> {
  for await (const batch of batches) {
    await pace(batch.length);
    yield batch;
  }
}
