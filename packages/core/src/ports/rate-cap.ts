/**
 * How far ahead of its even turn a reservation may start: a unit that ran
 * late, or the pause between one task's last unit and the next task's
 * first, costs the table none of its rate as long as it stays under this,
 * since the units after it start early until they are back on the even
 * pace. It also bounds the burst after an idle spell: at most this much of
 * a second's rows on top of the cap.
 */
export const RATE_CAP_CATCH_UP_MS = 100;

/**
 * A rate shared by every process that works one table: each caller reserves
 * the rows it is about to copy or delete, and waits as long as the answer
 * says before it works them. Reservations are spaced evenly at `perSecond`
 * (a generic cell rate: each one takes its rows' share of a second from where
 * the last one's share ended), so callers in any number of workers and
 * function instances together work at most `perSecond` rows a second,
 * averaged over any stretch longer than one reservation plus
 * RATE_CAP_CATCH_UP_MS. A reservation may start up to RATE_CAP_CATCH_UP_MS
 * before its even turn, which is how time lost between units is made up.
 *
 * Guarantees: reservations of one key are ordered by one clock (the store's),
 * whatever the callers' clocks say. Leaves out: cancelling a reservation
 * (rows reserved but not worked still count), and fairness between keys.
 */
export interface RateCap {
  /** Reserves `rows` of `key`'s budget at `perSecond`; resolves with the milliseconds to wait before working them. */
  reserve(key: string, rows: number, perSecond: number): Promise<number>;
}
