import type { PoolOptions } from "mysql2/promise";
import { VerificationError } from "../../errors";
import type { AccessCheck } from "../../ports/access-check";
import type { LoadProbe, RedoFill, ReplicaLag } from "../../ports/load-probe";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { mapMysqlError } from "./map-mysql-error";
import {
  grantStatement,
  isAccessDenied,
  replicaMonitorPrivilege,
  throttleRefusal,
} from "./privilege-refusal";
import { serverFactsOf } from "./server-facts";

/** The statement each server understands, newest spelling first. */
const STATUS_STATEMENTS = ["SHOW REPLICA STATUS", "SHOW SLAVE STATUS"] as const;
/** ER_PARSE_ERROR: the server predates `SHOW REPLICA STATUS` (MySQL < 8.0.22, MariaDB < 10.5.1). */
const PARSE_ERROR = 1064;

export interface MysqlLoadProbeOptions {
  /** The primary, whose Threads_running is read. */
  readonly primary: MysqlPool;
  /** mysql:// URLs of the replicas whose lag is read. */
  readonly replicaUrls: readonly string[];
  /** MYSQL_PASSWORD, used for a replica whose URL carries no password. */
  readonly password?: string | undefined;
  /** Pool options every replica connection gets too, such as the TLS ones of the primary. */
  readonly poolOptions?: Partial<PoolOptions>;
  /** Opens a replica's pool; tests pass fakes. */
  readonly connect?: (url: string, password: string | undefined) => MysqlPool;
}

/**
 * LoadProbe over MySQL or MariaDB. Lag comes from `SHOW REPLICA STATUS`, or
 * `SHOW SLAVE STATUS` on servers that do not know the new spelling, reading
 * `Seconds_Behind_Source` (MySQL 8.0.22+) or `Seconds_Behind_Master`; a
 * multi-source replica reports its largest lag. A replica that cannot be
 * reached, is not replicating, or reports NULL lag answers null with the
 * reason. Replicas are reached over one small pool each, opened on first use.
 * Redo fill is MariaDB's `Innodb_checkpoint_age`, or MySQL's
 * `log_lsn_checkpoint_age` metric when enabled, against the redo capacity
 * (`innodb_redo_log_capacity`, or log file size times files in group).
 */
export function createMysqlLoadProbe(options: MysqlLoadProbeOptions): LoadProbe {
  const connect =
    options.connect ??
    ((url: string, password: string | undefined) =>
      createMysqlPool(
        { url, password },
        { ...options.poolOptions, connectionLimit: 1, connectTimeout: 3_000 },
      ));
  const replicas = options.replicaUrls.map((url) => ({
    url,
    name: displayName(url),
    pool: undefined as MysqlPool | undefined,
    statement: 0,
  }));

  async function lagOf(replica: (typeof replicas)[number]): Promise<ReplicaLag> {
    try {
      replica.pool ??= connect(replica.url, new URL(replica.url).password ? undefined : options.password);
      const rows = await replicaStatus(replica.pool, replica);
      if (rows.length === 0) return { replica: replica.name, seconds: null, reason: "not a replica" };
      let worst = 0;
      for (const row of rows) {
        const value = row.Seconds_Behind_Source ?? row.Seconds_Behind_Master;
        if (value === null || value === undefined) {
          const io = row.Replica_IO_Running ?? row.Slave_IO_Running;
          const sql = row.Replica_SQL_Running ?? row.Slave_SQL_Running;
          return {
            replica: replica.name,
            seconds: null,
            reason: `replication not running (IO ${String(io)}, SQL ${String(sql)})`,
          };
        }
        worst = Math.max(worst, Number(value));
      }
      return { replica: replica.name, seconds: worst };
    } catch (error) {
      if (isAccessDenied(error) && replica.pool) throw await replicaRefusal(replica.pool, replica.name);
      return { replica: replica.name, seconds: null, reason: `unreachable: ${(error as Error).message}` };
    }
  }

  async function replicaCheck(replica: (typeof replicas)[number]): Promise<AccessCheck> {
    const need = `read the status of replica ${replica.name}`;
    const part = "replica-lag throttle";
    try {
      const lag = await lagOf(replica);
      return {
        for: part,
        need,
        privilege: "SLAVE MONITOR (MariaDB) or REPLICATION CLIENT (MySQL), on the replica",
        // A replica that answers but is not replicating holds the throttle, which is what it is for.
        ok: !lag.reason?.startsWith("unreachable"),
        detail: lag.seconds === null ? (lag.reason ?? "no figure") : `lag ${lag.seconds} s`,
      };
    } catch (error) {
      if (!(error instanceof VerificationError) || !replica.pool) throw error;
      const access = await replicaAccess(replica.pool);
      return {
        for: part,
        need,
        privilege: `${access.privilege}, on the replica`,
        ok: false,
        grant: access.grant,
      };
    }
  }

  async function redoCheck(): Promise<AccessCheck> {
    const need = "read InnoDB's checkpoint age";
    const part = "redo throttle";
    const privilege = "none on MariaDB (a status variable); PROCESS on MySQL (INNODB_METRICS)";
    try {
      const fill = await redoFill();
      return {
        for: part,
        need,
        privilege,
        ok: true,
        detail: fill
          ? `${Math.round(fill.percent)}% full`
          : "not reported by this server: the throttle has no effect",
      };
    } catch (error) {
      if (!(error instanceof VerificationError)) throw error;
      return {
        for: part,
        need,
        privilege: "PROCESS",
        ok: false,
        grant: grantStatement("PROCESS", "*.*", (await facts()).account),
      };
    }
  }

  let capacity: Promise<number | null> | undefined;
  /** Where this server reports the checkpoint age, once known (a server does not change kind). */
  const checkpoint: { source?: CheckpointSource } = {};
  const facts = serverFactsOf(options.primary);

  async function redoFill(): Promise<RedoFill | null> {
    try {
      capacity ??= redoCapacity(options.primary);
      const capacityBytes = await capacity;
      if (!capacityBytes) return null;
      const checkpointAgeBytes = await checkpointAge(options.primary, checkpoint);
      if (checkpointAgeBytes === null) return null;
      return { checkpointAgeBytes, capacityBytes, percent: (100 * checkpointAgeBytes) / capacityBytes };
    } catch (error) {
      capacity = undefined;
      if (!isAccessDenied(error)) throw mapMysqlError(error);
      throw throttleRefusal(
        "redo",
        "PROCESS (MySQL reads the checkpoint age from INNODB_METRICS)",
        grantStatement("PROCESS", "*.*", (await facts()).account),
      );
    }
  }

  return {
    replicaLags: () => Promise.all(replicas.map(lagOf)),

    async accessChecks(signals) {
      const checks: Promise<AccessCheck>[] = [];
      if (signals.replicaLag) checks.push(...replicas.map(replicaCheck));
      if (signals.redo) checks.push(redoCheck());
      return Promise.all(checks);
    },

    redoFill,

    async threadsRunning() {
      try {
        const [rows] = await options.primary.query({
          sql: "SHOW GLOBAL STATUS LIKE 'Threads_running'",
          rowsAsArray: true,
        });
        return Number((rows as unknown[][])[0]?.[1] ?? 0);
      } catch (error) {
        throw mapMysqlError(error);
      }
    },

    async close() {
      await Promise.allSettled(replicas.map((replica) => replica.pool?.end()));
    },
  };
}

type StatusRow = Readonly<Record<string, unknown>>;

/** What reading a replica's status takes on that replica's server, and the statement that grants it. */
async function replicaAccess(pool: MysqlPool): Promise<{ privilege: string; grant: string }> {
  const facts = await serverFactsOf(pool)();
  const privilege = replicaMonitorPrivilege(facts.version);
  return { privilege, grant: grantStatement(privilege, "*.*", facts.account) };
}

/** The refusal of a replica whose status the account may not read. */
async function replicaRefusal(pool: MysqlPool, name: string): Promise<VerificationError> {
  const { privilege, grant } = await replicaAccess(pool);
  return throttleRefusal(`replica-lag (${name})`, `${privilege} on that replica`, grant);
}

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

type CheckpointSource = "status" | "metric";

/**
 * MariaDB reports the checkpoint age as a status; MySQL 8 as an InnoDB metric,
 * when that is enabled. The first answer tells which one this server is, so
 * later probes (one per cleanup chunk) ask only that one.
 */
async function checkpointAge(pool: MysqlPool, known: { source?: CheckpointSource }): Promise<number | null> {
  if (known.source !== "metric") {
    const [status] = await pool.query({
      sql: "SHOW GLOBAL STATUS LIKE 'Innodb_checkpoint_age'",
      rowsAsArray: true,
    });
    const reported = (status as unknown[][])[0]?.[1];
    if (reported !== undefined && reported !== null) {
      known.source = "status";
      return Number(reported);
    }
    known.source = "metric";
  }
  const [metric] = await pool.query({
    sql: "SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'log_lsn_checkpoint_age' AND STATUS = 'enabled'",
    rowsAsArray: true,
  });
  const counted = (metric as unknown[][])[0]?.[0];
  return counted === undefined || counted === null ? null : Number(counted);
}

async function replicaStatus(pool: MysqlPool, replica: { statement: number }): Promise<StatusRow[]> {
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

/** host:port only: replica URLs may carry credentials, which must never reach a log. */
function displayName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "3306"}`;
  } catch {
    return "(invalid replica URL)";
  }
}
