import type { RedoFill } from "../../ports/load-probe";
import type { MysqlPool } from "./create-mysql-pool";

// InnoDB's own load figures, as MariaDB (status variables) and MySQL 8 (INNODB_METRICS) report them.

/** ER_BAD_FIELD_ERROR: a column this server does not have (INNODB_METRICS.STATUS on MariaDB). */
const BAD_FIELD = 1054;

/** The redo log capacity in bytes, or null when the server does not say. */
async function redoCapacity(pool: MysqlPool): Promise<number | null> {
  const [rows] = await pool.query({
    sql: "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_redo_log_capacity', 'innodb_log_file_size', 'innodb_log_files_in_group')",
    rowsAsArray: true,
  });
  const variables = new Map((rows as unknown[][]).map(([name, value]) => [String(name), Number(value)]));
  const capacity = variables.get("innodb_redo_log_capacity");
  if (capacity) return capacity;
  const fileSize = variables.get("innodb_log_file_size");
  return fileSize ? fileSize * (variables.get("innodb_log_files_in_group") || 1) : null;
}

export type StatusOrMetric = "status" | "metric";

/**
 * MariaDB reports InnoDB's checkpoint age and history length as status
 * variables; MySQL 8 as InnoDB metrics, when enabled. The first answer tells
 * which one this server is, so later probes (one per cleanup chunk) ask only
 * that one. Null when the server reports neither.
 */
export async function statusOrMetric(
  pool: MysqlPool,
  known: { source?: StatusOrMetric },
  status: string,
  metric: string,
): Promise<number | null> {
  if (known.source !== "metric") {
    const [rows] = await pool.query({ sql: `SHOW GLOBAL STATUS LIKE '${status}'`, rowsAsArray: true });
    const reported = (rows as unknown[][])[0]?.[1];
    if (reported !== undefined && reported !== null) {
      known.source = "status";
      return Number(reported);
    }
    known.source = "metric";
  }
  try {
    const [rows] = await pool.query({
      sql: `SELECT \`COUNT\` FROM information_schema.INNODB_METRICS WHERE NAME = '${metric}' AND STATUS = 'enabled'`,
      rowsAsArray: true,
    });
    const counted = (rows as unknown[][])[0]?.[0];
    return counted === undefined || counted === null ? null : Number(counted);
  } catch (error) {
    // A MariaDB without the status has INNODB_METRICS without STATUS (it says ENABLED): not reported.
    if ((error as { errno?: unknown }).errno === BAD_FIELD) return null;
    throw error;
  }
}

/** What a server's redo figures take to read, learnt on first use (a server does not change kind). */
export interface RedoKnown {
  capacity?: Promise<number | null>;
  readonly checkpoint: { source?: StatusOrMetric };
}

/** A server's redo log fill: its checkpoint age against its redo capacity; null when it reports either not. */
export async function fillOf(pool: MysqlPool, known: RedoKnown): Promise<RedoFill | null> {
  try {
    known.capacity ??= redoCapacity(pool);
    const capacityBytes = await known.capacity;
    if (!capacityBytes) return null;
    const checkpointAgeBytes = await statusOrMetric(
      pool,
      known.checkpoint,
      "Innodb_checkpoint_age",
      "log_lsn_checkpoint_age",
    );
    if (checkpointAgeBytes === null) return null;
    return { checkpointAgeBytes, capacityBytes, percent: (100 * checkpointAgeBytes) / capacityBytes };
  } catch (error) {
    known.capacity = undefined;
    throw error;
  }
}
