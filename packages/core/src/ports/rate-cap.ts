/**
 * A rate shared by every process that works one table: each caller reserves
 * the rows it is about to copy or delete, and waits as long as the answer
 * says before it works them. Reservations are spaced evenly at `perSecond`
 * (a generic cell rate: each one starts where the last one's share of time
 * ends), so callers in any number of workers and function instances together
 * work at most `perSecond` rows a second, averaged over any stretch longer
 * than one reservation.
 *
 * Guarantees: reservations of one key are ordered by one clock (the store's),
 * whatever the callers' clocks say. Leaves out: cancelling a reservation
 * (rows reserved but not worked still count), and fairness between keys.
 */
export interface RateCap {
  /** Reserves `rows` of `key`'s budget at `perSecond`; resolves with the milliseconds to wait before working them. */
  reserve(key: string, rows: number, perSecond: number): Promise<number>;
}
