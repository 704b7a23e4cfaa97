import { createHash } from "node:crypto";
import type { PartitionedTable, PartitionRows } from "../../ports/partitioned-table";
import type { MysqlPool, MysqlPoolConnection } from "./create-mysql-pool";
import { mapMysqlError } from "./map-mysql-error";
import { type PartitionRow, partitioningOf } from "./partition-bounds";
import { createPartitionDayReads } from "./partition-day-reads";
import { grantStatement } from "./privilege-refusal";
import { quoteIdentifier } from "./quote-identifier";
import { serverFactsOf } from "./server-facts";
import { queryRows } from "./sql-query";

/** Every twin's name starts so; `archiver status` finds them by it. */
const TWIN_PREFIX = "archiver_twin__";
/** The twin's table comment names its table and partition even when its name had to be shortened. */
const COMMENT_PREFIX = "table-archiver: rows detached from ";

/** What emptying a partition by exchange takes, on the table's database. */
const EXCHANGE_PRIVILEGES = ["CREATE", "DROP", "ALTER", "INSERT"] as const;

/** Test hooks: run between steps, to die where a crash would. */
export interface PartitionedTableFaults {
  /** Runs inside the put-back's transaction, after the rows were inserted and before the commit. */
  readonly beforePutBackCommit?: () => Promise<void>;
}

/**
 * PartitionedTable on a pool made by createMysqlPool. The twin lives in the
 * table's database, created from the table's own definition without its
 * partitioning (see twinDefinition), so its columns, indexes and engine are
 * the table's; its comment names the table and partition it came from.
 */
export function createMysqlPartitionedTable(
  pool: MysqlPool,
  faults: PartitionedTableFaults = {},
): PartitionedTable {
  const facts = serverFactsOf(pool);

  /** One statement on the pool (queryRows), errors naming `table` when given. */
  function run(sql: string, values: readonly unknown[] = [], table?: string): Promise<unknown[][]> {
    return queryRows(pool, { sql, values }, table ? { table } : {});
  }

  async function twinRows(table: string, partition: string): Promise<number | undefined> {
    const twin = twinName(table, partition);
    const found = await run(
      "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
      [twin],
    );
    if (Number(found[0]?.[0] ?? 0) === 0) return undefined;
    const counted = await run(`SELECT COUNT(*) FROM ${quoteIdentifier(twin)}`, [], table);
    return Number(counted[0]?.[0] ?? 0);
  }

  /** The twins in the database, by the table and partition their comment names. */
  async function listTwins(): Promise<{ table: string; partition: string; twin: string }[]> {
    const rows = await run(
      `SELECT TABLE_NAME, TABLE_COMMENT FROM information_schema.TABLES
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE ? ORDER BY TABLE_NAME`,
      [`${TWIN_PREFIX.replace(/_/g, "\\_")}%`],
    );
    return rows.flatMap(([name, comment]) => {
      const origin = parseComment(String(comment ?? ""));
      return origin ? [{ ...origin, twin: String(name) }] : [];
    });
  }

  async function partitionExists(table: string, partition: string): Promise<boolean> {
    const found = await run(
      `SELECT COUNT(*) FROM information_schema.PARTITIONS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME = ?`,
      [table, partition],
      table,
    );
    return Number(found[0]?.[0] ?? 0) > 0;
  }

  /** Moves the twin's rows into the table and empties the twin, in one transaction. */
  async function insertBack(table: string, twin: string, rows: number): Promise<void> {
    let connection: MysqlPoolConnection | undefined;
    try {
      connection = await pool.getConnection();
      // Generated columns are computed again by the table, never inserted.
      const [stored] = await connection.query(
        {
          sql: `SELECT COLUMN_NAME FROM information_schema.COLUMNS
                    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND EXTRA NOT LIKE '%GENERATED%'
                    ORDER BY ORDINAL_POSITION`,
          rowsAsArray: true,
        },
        [table],
      );
      const columns = (stored as unknown[][]).map(([name]) => quoteIdentifier(String(name))).join(", ");
      await connection.query({ sql: "START TRANSACTION" });
      const [inserted] = await connection.query({
        sql: `INSERT INTO ${quoteIdentifier(table)} (${columns}) SELECT ${columns} FROM ${twin}`,
      });
      await connection.query({ sql: `DELETE FROM ${twin}` });
      await faults.beforePutBackCommit?.();
      const moved = (inserted as { affectedRows: number }).affectedRows;
      if (moved !== rows) throw new Error(`${moved} rows inserted back, ${rows} expected`);
      await connection.query({ sql: "COMMIT" });
      connection.release();
    } catch (error) {
      // Never committed: the server rolls back when the connection goes, the twin keeps its rows.
      connection?.destroy();
      throw mapMysqlError(error, { table });
    }
  }

  return {
    async partitioning(table) {
      const rows = await run(
        `SELECT PARTITION_NAME, SUBPARTITION_NAME, PARTITION_METHOD, PARTITION_EXPRESSION, PARTITION_DESCRIPTION
           FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
           ORDER BY PARTITION_ORDINAL_POSITION, SUBPARTITION_ORDINAL_POSITION`,
        [table],
        table,
      );
      const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
      return partitioningOf(
        rows.map(([name, subpartition, method, expression, description]) => ({
          name: text(name),
          subpartition: text(subpartition),
          method: text(method),
          expression: text(expression),
          description: text(description),
        })) satisfies PartitionRow[],
      );
    },

    async insertTriggers(table) {
      const rows = await run(
        `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS
           WHERE EVENT_OBJECT_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'INSERT'
           ORDER BY TRIGGER_NAME`,
        [table],
        table,
      );
      return rows.map(([name]) => String(name));
    },

    async secondsSinceWrite(table, partition) {
      const [row] = await run(
        `SELECT TIMESTAMPDIFF(SECOND, UPDATE_TIME, NOW()) FROM information_schema.PARTITIONS
           WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME = ?`,
        [table, partition],
        table,
      );
      if (!row) return undefined;
      if (row[0] !== null && row[0] !== undefined) return Number(row[0]);
      // No write since the server started (InnoDB keeps the time in memory only).
      const [uptime] = await run("SHOW GLOBAL STATUS LIKE 'Uptime'");
      return uptime ? Number(uptime[1]) : undefined;
    },

    async mayExchange() {
      const server = await facts();
      // Global grants, or grants on the database (a database grant's name is a LIKE pattern).
      const rows = await run(
        `SELECT DISTINCT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?
         UNION SELECT DISTINCT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES
           WHERE GRANTEE = ? AND DATABASE() LIKE BINARY TABLE_SCHEMA`,
        [server.account, server.account],
      );
      const held = new Set(rows.map(([privilege]) => String(privilege)));
      const missing = EXCHANGE_PRIVILEGES.filter((privilege) => !held.has(privilege));
      if (missing.length === 0) return { ok: true };
      return {
        ok: false,
        grant: grantStatement(
          EXCHANGE_PRIVILEGES.join(", "),
          `${quoteIdentifier(server.database)}.*`,
          server.account,
        ),
      };
    },

    ...createPartitionDayReads(run, from),

    twinName,
    twinRows,
    describeDetach: (table, partition) =>
      exchangeStatement(table, partition, quoteIdentifier(twinName(table, partition))),

    async detach(table, partition) {
      const twin = quoteIdentifier(twinName(table, partition));
      const comment = `${COMMENT_PREFIX}${JSON.stringify({ table, partition })}`;
      const [[, definition] = []] = await run(`SHOW CREATE TABLE ${quoteIdentifier(table)}`, [], table);
      await run(`${twinDefinition(String(definition), twin)} COMMENT = ?`, [comment], table);
      await run(exchangeStatement(table, partition, twin), [], table);
    },

    async putBack(table, partition) {
      const twin = quoteIdentifier(twinName(table, partition));
      const detached = (await twinRows(table, partition)) ?? 0;
      if (!(await partitionExists(table, partition))) {
        // Dropped or reorganized while its rows were detached: they go back row by row, wherever the
        // table's partitions now put them.
        if (detached > 0) await insertBack(table, twin, detached);
        return detached;
      }
      // Exchanged back, the detached rows are the partition's again in one metadata step (the server checks
      // that each belongs to it); rows that reached the emptied partition meanwhile are in the twin now.
      await run(exchangeStatement(table, partition, twin), [], table);
      const late = (await twinRows(table, partition)) ?? 0;
      if (late > 0) await insertBack(table, twin, late);
      return detached;
    },

    async dropTwin(table, partition) {
      await run(`DROP TABLE IF EXISTS ${quoteIdentifier(twinName(table, partition))}`, [], table);
    },

    async detachedTwins() {
      const twins = [];
      for (const twin of await listTwins()) {
        const counted = await run(`SELECT COUNT(*) FROM ${quoteIdentifier(twin.twin)}`);
        twins.push({ ...twin, rows: Number(counted[0]?.[0] ?? 0) });
      }
      return twins;
    },

    async detachedPartitions(table) {
      return (await listTwins()).flatMap((twin) => (twin.table === table ? [twin.partition] : []));
    },
  };
}

/**
 * `archiver_twin__<table>__<partition>`; when that exceeds the 64 characters
 * a table name may have, its start and a hash of the whole name.
 */
export function twinName(table: string, partition: string): string {
  const full = `${TWIN_PREFIX}${table}__${partition}`;
  if (full.length <= 64) return full;
  const hash = createHash("sha1").update(full).digest("hex").slice(0, 10);
  return `${full.slice(0, 64 - hash.length - 2)}__${hash}`;
}

/**
 * The table's own CREATE TABLE (its columns, indexes and options, so the
 * exchange finds them identical) under the twin's name, without its
 * partitioning: one statement, where CREATE TABLE ... LIKE and REMOVE
 * PARTITIONING are two and rebuild the table in between.
 */
export function twinDefinition(definition: string, quotedTwin: string): string {
  const named = definition.replace(/^CREATE TABLE `(?:[^`]|``)+`/, `CREATE TABLE ${quotedTwin}`);
  // The clause comes last; a comment or default that spells the words comes before it.
  const partitioning = [...named.matchAll(/\s*(?:\/\*!\d+\s*)?PARTITION BY /g)].at(-1)?.index ?? -1;
  if (!named.startsWith(`CREATE TABLE ${quotedTwin}`) || partitioning < 0) {
    throw new Error(`cannot read the table's definition to create its twin: ${definition.slice(0, 200)}`);
  }
  return named.slice(0, partitioning);
}

/** Swaps the partition's rows with the twin's: the one statement that detaches them, and puts them back. */
function exchangeStatement(table: string, partition: string, quotedTwin: string): string {
  return `ALTER TABLE ${quoteIdentifier(table)} EXCHANGE PARTITION ${quoteIdentifier(partition)} WITH TABLE ${quotedTwin}`;
}

/** The rows `rows` names, as a FROM target: a partition of the live table, or the twin. */
function from(table: string, rows: PartitionRows): string {
  return "partition" in rows
    ? `${quoteIdentifier(table)} PARTITION (${quoteIdentifier(rows.partition)})`
    : quoteIdentifier(twinName(table, rows.twinOf));
}

function parseComment(comment: string): { table: string; partition: string } | undefined {
  if (!comment.startsWith(COMMENT_PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(comment.slice(COMMENT_PREFIX.length)) as {
      table?: unknown;
      partition?: unknown;
    };
    return typeof parsed.table === "string" && typeof parsed.partition === "string"
      ? { table: parsed.table, partition: parsed.partition }
      : undefined;
  } catch {
    return undefined;
  }
}
