/**
 * Which scheduled runs have been delivered: a scheduler delivers at least
 * once, so the same scheduled run may arrive twice.
 *
 * Guarantees: `first` answers true for exactly one of any number of calls
 * with the same key within `ttlMs`, whatever process makes them. Leaves out:
 * anything about the run itself.
 */
export interface ScheduledDeliveries {
  /** True for the first delivery of `key`; false for every later one within `ttlMs`. */
  first(key: string, ttlMs: number): Promise<boolean>;
}
