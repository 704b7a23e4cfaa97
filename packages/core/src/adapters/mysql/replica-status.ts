import type { RefusalError } from "../../errors";
import type { ReplicaLag } from "../../ports/load-probe";
import type { MysqlPool } from "./create-mysql-pool";
import { grantStatement, replicaMonitorPrivilege, throttleRefusal } from "./privilege-refusal";
import type { Heartbeat } from "./replica-heartbeat";
import { serverFactsOf } from "./server-facts";

// A replica's own status (SHOW REPLICA STATUS), and what reading it takes.

/** The statement each server understands, newest spelling first. */
const STATUS_STATEMENTS = ["SHOW REPLICA STATUS", "SHOW SLAVE STATUS"] as const;
/** ER_PARSE_ERROR: the server predates `SHOW REPLICA STATUS` (MySQL < 8.0.22, MariaDB < 10.5.1). */
const PARSE_ERROR = 1064;

type StatusRow = Readonly<Record<string, unknown>>;

/**
 * The replica's status rows, one per source, in the spelling the server
 * understands: `statement` remembers which, so the fallback is asked once.
 */
export async function replicaStatus(pool: MysqlPool, replica: { statement: number }): Promise<StatusRow[]> {
  for (;;) {
    const sql = STATUS_STATEMENTS[replica.statement] ?? STATUS_STATEMENTS[1];
    try {
      const [rows] = await pool.query({ sql });
      return rows as StatusRow[];
    } catch (error) {
      const errno = (error as { errno?: unknown }).errno;
      if (errno !== PARSE_ERROR || replica.statement >= STATUS_STATEMENTS.length - 1) throw error;
      replica.statement += 1;
    }
  }
}

/**
 * The lag its status rows report: `Seconds_Behind_Source` (MySQL 8.0.22+) or
 * `Seconds_Behind_Master`, the largest of a multi-source replica; null with
 * the reason when it is not a replica or a source's replication is stopped.
 */
export function lagOfStatus(replica: string, rows: readonly StatusRow[]): ReplicaLag {
  if (rows.length === 0) return { replica, seconds: null, reason: "not a replica" };
  let worst = 0;
  for (const row of rows) {
    const value = row.Seconds_Behind_Source ?? row.Seconds_Behind_Master;
    if (value === null || value === undefined) {
      const io = row.Replica_IO_Running ?? row.Slave_IO_Running;
      const sql = row.Replica_SQL_Running ?? row.Slave_SQL_Running;
      return {
        replica,
        seconds: null,
        reason: `replication not running (IO ${String(io)}, SQL ${String(sql)})`,
      };
    }
    worst = Math.max(worst, Number(value));
  }
  return { replica, seconds: worst };
}

/**
 * What reading a replica's lag takes on that replica's server, and the
 * statement that grants it: SELECT on the heartbeat table when there is one,
 * else the privilege its status takes.
 */
export async function replicaAccess(
  pool: MysqlPool,
  heartbeat: Heartbeat | undefined,
): Promise<{ privilege: string; grant: string }> {
  const facts = await serverFactsOf(pool)();
  if (heartbeat) {
    return {
      privilege: `SELECT ON ${heartbeat.quoted}`,
      grant: grantStatement("SELECT", heartbeat.quoted, facts.account),
    };
  }
  const privilege = replicaMonitorPrivilege(facts.version);
  return { privilege, grant: grantStatement(privilege, "*.*", facts.account) };
}

/** The refusal of a replica whose lag the account may not read. */
export async function replicaRefusal(
  pool: MysqlPool,
  name: string,
  heartbeat: Heartbeat | undefined,
): Promise<RefusalError> {
  const { privilege, grant } = await replicaAccess(pool, heartbeat);
  return throttleRefusal(`replica-lag (${name})`, `${privilege} on that replica`, grant);
}

/** host:port only: replica URLs may carry credentials, which must never reach a log. */
export function displayName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "3306"}`;
  } catch {
    return "(invalid replica URL)";
  }
}
