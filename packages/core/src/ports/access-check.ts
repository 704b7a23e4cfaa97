/**
 * One thing the archiver's database account must be allowed to do, and
 * whether it is. A safety check that reads what the account may see (foreign
 * keys, triggers, replica status) is only as good as that account's view, so
 * cleanup proves each one before it plans anything, and refuses the table when
 * one is missing.
 */
export interface AccessCheck {
  /** The part of the archiver that needs it. */
  readonly for: "copy" | "cleanup" | "replica-lag throttle" | "redo throttle" | "history throttle";
  /** What it does with it, in an operator's words ("delete rows of `shop`.`orders`"). */
  readonly need: string;
  /** The privilege it takes, as GRANT spells it ("PROCESS", "TRIGGER ON `shop`.`orders`"). */
  readonly privilege: string;
  readonly ok: boolean;
  /** The statement that grants what is missing, when not ok. */
  readonly grant?: string;
  /** Why not, when not ok (the server's own words), or where the figure comes from. */
  readonly detail?: string;
}

/**
 * What the archiver's account on the source may do.
 *
 * Guarantees: each check asks the server (a probe that reads nothing and
 * changes nothing, or the account's own grants where no probe can tell) and is
 * `ok` only when the server proved it; anything it cannot prove is not ok,
 * with the GRANT statement that would make it so.
 *
 * Leaves out: the throttles' signals (LoadProbe.accessChecks) and whether the
 * account should have them (the cleanup decides which it needs).
 */
export interface AccountCheck {
  /** The account as GRANT names it ('user'@'host'), and the server it is on. */
  describe(): Promise<{ readonly account: string; readonly server: string }>;
  /** What copying `table` takes: reading it. */
  copy(table: string): Promise<readonly AccessCheck[]>;
  /**
   * What cleaning `table` takes: deleting its rows, seeing every foreign key
   * that references it (in any database) with its ON DELETE rule, seeing its
   * DELETE triggers, and reading each referencing table to count references.
   */
  cleanup(table: string): Promise<readonly AccessCheck[]>;
}
