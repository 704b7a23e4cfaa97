import type { PoolOptions } from "mysql2/promise";
import { RefusalError } from "../../errors";
import type { AccessCheck } from "../../ports/access-check";
import type { LoadProbe, RedoFill, ReplicaLag, ReplicaRedo } from "../../ports/load-probe";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { fillOf, type RedoKnown, type StatusOrMetric, statusOrMetric } from "./innodb-figures";
import { mapMysqlError } from "./map-mysql-error";
import { grantStatement, isAccessDenied, throttleRefusal } from "./privilege-refusal";
import { type Heartbeat, heartbeatLag, heartbeatOf } from "./replica-heartbeat";
import { displayName, lagOfStatus, replicaAccess, replicaRefusal, replicaStatus } from "./replica-status";
import { serverFactsOf } from "./server-facts";

export interface MysqlLoadProbeOptions {
  /** The primary, whose Threads_running is read. */
  readonly primary: MysqlPool;
  /** mysql:// URLs of the replicas whose lag is read. */
  readonly replicaUrls: readonly string[];
  /** MYSQL_PASSWORD, used for a replica whose URL carries no password. */
  readonly password?: string | undefined;
  /**
   * `database.table` of a pt-heartbeat table whose `ts` is UTC (`pt-heartbeat --update --utc`):
   * each replica's lag is the age of its newest `ts` on the replica's own clock instead of its status.
   */
  readonly heartbeatTable?: string | undefined;
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
 * reason. With a heartbeat table, lag is instead the age of the table's
 * newest `ts` (written in UTC by pt-heartbeat on the primary) against the
 * replica's UTC clock, in fractional seconds; no table, no row, a stale
 * heartbeat or one in the future answers null with the reason. Replicas are
 * reached over one small pool each, opened on first use.
 * Redo fill is MariaDB's `Innodb_checkpoint_age`, or MySQL's
 * `log_lsn_checkpoint_age` metric when enabled, against the redo capacity
 * (`innodb_redo_log_capacity`, or log file size times files in group).
 * History length is MariaDB's `Innodb_history_list_length`, or MySQL's
 * `trx_rseg_history_len` metric when enabled.
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
    redo: { checkpoint: {} } as RedoKnown,
    /** The heartbeat table has pt-heartbeat's server_id column (not the legacy id, ts layout). */
    heartbeatByServer: true,
  }));

  const heartbeat = options.heartbeatTable ? heartbeatOf(options.heartbeatTable) : undefined;
  let primaryServerId: Promise<number> | undefined;

  /**
   * The primary's heartbeat row, as pt-heartbeat's --master-server-id picks
   * it: where a replica runs its own --update too, its row is always fresh.
   */
  async function heartbeatOfPrimary(
    replica: (typeof replicas)[number],
    pool: MysqlPool,
    table: Heartbeat,
  ): Promise<ReplicaLag> {
    let serverId: number | undefined;
    if (replica.heartbeatByServer) {
      try {
        primaryServerId ??= options.primary
          .query({ sql: "SELECT @@server_id", rowsAsArray: true })
          .then(([rows]) => Number((rows as unknown[][])[0]?.[0]));
        serverId = await primaryServerId;
      } catch (error) {
        primaryServerId = undefined;
        const reason = `cannot read the primary's server_id: ${(error as Error).message}`;
        return { replica: replica.name, seconds: null, reason };
      }
    }
    const lag = await heartbeatLag(pool, replica.name, table, serverId);
    if (lag !== "legacy") return lag;
    // The legacy layout holds one row, written by the primary's pt-heartbeat.
    replica.heartbeatByServer = false;
    return heartbeatOfPrimary(replica, pool, table);
  }

  /** The replica's pool, opened on first use. */
  function poolOf(replica: (typeof replicas)[number]): MysqlPool {
    replica.pool ??= connect(replica.url, new URL(replica.url).password ? undefined : options.password);
    return replica.pool;
  }

  async function lagOf(replica: (typeof replicas)[number]): Promise<ReplicaLag> {
    try {
      const pool = poolOf(replica);
      if (heartbeat) return await heartbeatOfPrimary(replica, pool, heartbeat);
      return lagOfStatus(replica.name, await replicaStatus(pool, replica));
    } catch (error) {
      if (isAccessDenied(error) && replica.pool) {
        throw await replicaRefusal(replica.pool, replica.name, heartbeat);
      }
      return { replica: replica.name, seconds: null, reason: `unreachable: ${(error as Error).message}` };
    }
  }

  async function replicaCheck(replica: (typeof replicas)[number]): Promise<AccessCheck> {
    const need = heartbeat
      ? `read the heartbeat ${heartbeat.name} on replica ${replica.name}`
      : `read the status of replica ${replica.name}`;
    const part = "replica-lag throttle";
    try {
      const lag = await lagOf(replica);
      return {
        for: part,
        need,
        privilege: heartbeat
          ? `SELECT ON ${heartbeat.quoted}, on the replica`
          : "SLAVE MONITOR (MariaDB) or REPLICATION CLIENT (MySQL), on the replica",
        // A replica that answers but is not replicating holds the throttle, which is what it is for.
        ok: !lag.reason?.startsWith("unreachable"),
        detail: lag.seconds === null ? (lag.reason ?? "no figure") : `lag ${lag.seconds} s`,
      };
    } catch (error) {
      if (!(error instanceof RefusalError) || !replica.pool) throw error;
      const access = await replicaAccess(replica.pool, heartbeat);
      return {
        for: part,
        need,
        privilege: `${access.privilege}, on the replica`,
        ok: false,
        grant: access.grant,
      };
    }
  }

  /** An InnoDB figure's check: readable (with what it reads now), or the PROCESS grant MySQL needs for it. */
  async function figureCheck<T>(
    part: AccessCheck["for"],
    need: string,
    read: () => Promise<T | null>,
    describe: (figure: T) => string,
    account = facts,
  ): Promise<AccessCheck> {
    try {
      const figure = await read();
      return {
        for: part,
        need,
        privilege: "none on MariaDB (a status variable); PROCESS on MySQL (INNODB_METRICS)",
        ok: true,
        detail:
          figure === null ? "not reported by this server: the throttle has no effect" : describe(figure),
      };
    } catch (error) {
      if (!(error instanceof RefusalError)) throw error;
      return {
        for: part,
        need,
        privilege: "PROCESS",
        ok: false,
        grant: grantStatement("PROCESS", "*.*", (await account()).account),
      };
    }
  }

  /** Where this server reports the history list length, once known. */
  const history: { source?: StatusOrMetric } = {};

  const primaryRedo: RedoKnown = { checkpoint: {} };
  const facts = serverFactsOf(options.primary);

  /** Reads an InnoDB figure off the primary; where MySQL keeps it in INNODB_METRICS, a refusal names PROCESS. */
  async function primaryFigure<T>(throttle: string, figure: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (!isAccessDenied(error)) throw mapMysqlError(error);
      throw throttleRefusal(
        throttle,
        `PROCESS (MySQL reads the ${figure} from INNODB_METRICS)`,
        grantStatement("PROCESS", "*.*", (await facts()).account),
      );
    }
  }

  const historyLength = () =>
    primaryFigure("history", "history list length", () =>
      statusOrMetric(options.primary, history, "Innodb_history_list_length", "trx_rseg_history_len"),
    );
  const redoFill = () => primaryFigure("redo", "checkpoint age", () => fillOf(options.primary, primaryRedo));

  async function replicaRedoOf(replica: (typeof replicas)[number]): Promise<ReplicaRedo> {
    try {
      return { replica: replica.name, fill: await fillOf(poolOf(replica), replica.redo) };
    } catch (error) {
      if (!isAccessDenied(error) || !replica.pool) {
        return { replica: replica.name, fill: null, reason: `unreachable: ${(error as Error).message}` };
      }
      throw throttleRefusal(
        `redo (${replica.name})`,
        "PROCESS on that replica (MySQL reads the checkpoint age from INNODB_METRICS)",
        grantStatement("PROCESS", "*.*", (await serverFactsOf(replica.pool)()).account),
      );
    }
  }

  /** A replica's redo check, as the primary's; an unreachable replica says so (its lag check holds the cleanup). */
  async function replicaRedoCheck(
    replica: (typeof replicas)[number],
    describe: (fill: RedoFill) => string,
  ): Promise<AccessCheck> {
    let unreachable: string | undefined;
    const check = await figureCheck(
      "redo throttle",
      `read InnoDB's checkpoint age on replica ${replica.name}`,
      async () => {
        const { fill, reason } = await replicaRedoOf(replica);
        unreachable = reason;
        return fill;
      },
      describe,
      () => serverFactsOf(poolOf(replica))(),
    );
    return unreachable ? { ...check, detail: unreachable } : check;
  }

  return {
    replicaLags: () => Promise.all(replicas.map(lagOf)),

    async accessChecks(signals) {
      const checks: Promise<AccessCheck>[] = [];
      if (signals.replicaLag) checks.push(...replicas.map(replicaCheck));
      if (signals.redo) {
        const full = (fill: RedoFill) => `${Math.round(fill.percent)}% full`;
        checks.push(figureCheck("redo throttle", "read InnoDB's checkpoint age", redoFill, full));
        for (const replica of replicas) checks.push(replicaRedoCheck(replica, full));
      }
      if (signals.historyLength) {
        checks.push(
          figureCheck(
            "history throttle",
            "read InnoDB's history list length",
            historyLength,
            (n) => `${n} long`,
          ),
        );
      }
      return Promise.all(checks);
    },

    redoFill,
    replicaRedoFills: () => Promise.all(replicas.map(replicaRedoOf)),
    historyLength,

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
