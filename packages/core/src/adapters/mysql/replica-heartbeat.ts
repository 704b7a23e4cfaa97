import type { ReplicaLag } from "../../ports/load-probe";
import type { MysqlPool } from "./create-mysql-pool";
import { qualifiedName } from "./privilege-refusal";

// Replica lag from a pt-heartbeat table (CLEANUP_REPLICA_HEARTBEAT_TABLE): sub-second, and readable where a
// replica's status is coarse or hidden.

/** ER_BAD_DB_ERROR, ER_NO_SUCH_TABLE: the heartbeat table is not on the replica. */
const NO_SUCH_TABLE = new Set([1049, 1146]);
/** ER_BAD_FIELD_ERROR: a column the table does not have (server_id in pt-heartbeat's legacy layout). */
const BAD_FIELD = 1054;
/**
 * A heartbeat older than this is taken as stale, not as lag: nothing may be
 * writing it any more (pt-heartbeat --update stopped), or not in UTC. Either
 * way the figure says nothing, and the replica is held as one whose lag is unknown.
 */
const HEARTBEAT_STALE_SECONDS = 60;
/** A heartbeat this far ahead of the replica's clock is in another time zone (or a clock is wrong). */
const HEARTBEAT_AHEAD_SECONDS = 1;

/** A heartbeat table as the queries and the messages name it. */
export interface Heartbeat {
  /** `database`.`table`, quoted. */
  readonly quoted: string;
  /** database.table, as configured. */
  readonly name: string;
}

export function heartbeatOf(table: string): Heartbeat {
  const [database = "", name = ""] = table.split(".");
  return { quoted: qualifiedName(database, name), name: table };
}

/**
 * The age of the newest heartbeat on the replica (of the primary's row, when
 * `serverId` names it), against the replica's own UTC clock: `ts` as
 * pt-heartbeat --utc writes it (UTC text, or a DATETIME; a TIMESTAMP column
 * reads as UTC too, since every session of the archiver is in UTC).
 * Measuring on the replica leaves the archiver's own clock out; what remains
 * is the primary host's clock against the replica's, as for pt-heartbeat
 * itself. The figure is the lag plus up to one heartbeat interval. "legacy"
 * when the table has no server_id column (pt-heartbeat's legacy id, ts layout).
 */
export async function heartbeatLag(
  pool: MysqlPool,
  replica: string,
  heartbeat: Heartbeat,
  serverId: number | undefined,
): Promise<ReplicaLag | "legacy"> {
  let micros: unknown;
  try {
    const [rows] = await pool.query({
      sql:
        `SELECT TIMESTAMPDIFF(MICROSECOND, CAST(MAX(ts) AS DATETIME(6)), UTC_TIMESTAMP(6)) FROM ${heartbeat.quoted}` +
        (serverId === undefined ? "" : ` WHERE server_id = ${Number(serverId)}`),
      rowsAsArray: true,
    });
    micros = (rows as unknown[][])[0]?.[0];
  } catch (error) {
    const errno = (error as { errno?: unknown }).errno;
    if (typeof errno === "number" && NO_SUCH_TABLE.has(errno)) {
      return { replica, seconds: null, reason: `no heartbeat table ${heartbeat.name} on the replica` };
    }
    if (errno === BAD_FIELD && serverId !== undefined) return "legacy";
    throw error;
  }
  if (micros === null || micros === undefined) {
    const whose = serverId === undefined ? "" : ` from the primary (server_id ${serverId})`;
    return {
      replica,
      seconds: null,
      reason: `no heartbeat${whose} in ${heartbeat.name} (no row, or no ts it can read)`,
    };
  }
  const seconds = Number(micros) / 1_000_000;
  if (seconds < -HEARTBEAT_AHEAD_SECONDS) {
    return {
      replica,
      seconds: null,
      reason: `heartbeat ${round(-seconds)} s ahead of the replica's UTC clock (is it written in UTC, pt-heartbeat --utc?)`,
    };
  }
  if (seconds > HEARTBEAT_STALE_SECONDS) {
    return {
      replica,
      seconds: null,
      reason:
        `heartbeat ${round(seconds)} s old: the replica is that far behind, or nothing writes it on the ` +
        "primary (pt-heartbeat --update --utc)",
    };
  }
  // Clocks a little apart can put a fresh heartbeat slightly in the future: that is no lag.
  return { replica, seconds: Math.max(0, Math.round(seconds * 1000) / 1000) };
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
