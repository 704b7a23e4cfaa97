import type { SourceColumn, TableSchema } from "../../model/table-schema";
import type { MysqlPool } from "./create-mysql-pool";
import { mapMysqlError } from "./map-mysql-error";
import { toLogicalType } from "./mysql-logical-type";
import { quoteIdentifier } from "./quote-identifier";

// Views are left out: the archiver deletes what it copied, which a view cannot promise.
// MariaDB lists system-versioned tables under their own TABLE_TYPE.
const TABLE_SQL = `SELECT TABLE_NAME FROM information_schema.TABLES
  WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')`;

const COLUMNS_SQL = `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE,
    NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME
  FROM information_schema.COLUMNS
  WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
  ORDER BY ORDINAL_POSITION`;

// SELECT * because the visibility column differs: MySQL has IS_VISIBLE, MariaDB IGNORED.
const STATISTICS_SQL = `SELECT * FROM information_schema.STATISTICS
  WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
  ORDER BY INDEX_NAME, SEQ_IN_INDEX`;

/** Index kinds whose leading column cannot serve a range scan on that column. */
const NON_RANGE_INDEX_TYPES = new Set(["FULLTEXT", "SPATIAL", "RTREE", "HASH", "VECTOR"]);

type Values = readonly unknown[];

/**
 * The schema of a base table in the connection's database (`DATABASE()`), or
 * undefined when there is none by that name. A column type the archiver has no
 * mapping for (MariaDB INET6, UUID, ...) is described as a string; the reader
 * casts it to utf8mb4 text.
 */
export async function introspectTable(pool: MysqlPool, table: string): Promise<TableSchema | undefined> {
  try {
    const [tables, columns, statistics] = await Promise.all([
      pool.query({ sql: TABLE_SQL, rowsAsArray: true }, [table]),
      pool.query({ sql: COLUMNS_SQL, rowsAsArray: true }, [table]),
      pool.query({ sql: STATISTICS_SQL }, [table]),
    ]);
    const found = (tables[0] as Values[])[0];
    if (!found) return undefined;
    const indexRows = statistics[0] as Record<string, unknown>[];
    return {
      name: text(found[0]),
      columns: (columns[0] as Values[]).map(toSourceColumn),
      primaryKey: indexRows.filter((r) => text(r.INDEX_NAME) === "PRIMARY").map((r) => text(r.COLUMN_NAME)),
      indexLeadingColumns: leadingColumns(indexRows),
    };
  } catch (error) {
    throw mapMysqlError(error, { table });
  }
}

function toSourceColumn(row: Values): SourceColumn {
  const [name, dataType, columnType, isNullable, precision, scale, datetimePrecision, characterSet] = row;
  const facts = {
    dataType: text(dataType).toLowerCase(),
    columnType: text(columnType),
    numericPrecision: numberOrNull(precision),
    numericScale: numberOrNull(scale),
    datetimePrecision: numberOrNull(datetimePrecision),
  };
  return {
    name: text(name),
    dataType: facts.dataType,
    columnType: facts.columnType,
    nullable: text(isNullable) === "YES",
    // A type the archiver does not know is read as its text.
    logicalType: toLogicalType(facts) ?? { kind: "string" },
    ...(characterSet === null || characterSet === undefined ? {} : { characterSet: text(characterSet) }),
  };
}

function leadingColumns(rows: readonly Record<string, unknown>[]): string[] {
  const leading = new Set<string>();
  for (const row of rows) {
    // Functional indexes (MySQL 8) have no column name; invisible or ignored
    // indexes are never chosen by the optimizer.
    if (Number(row.SEQ_IN_INDEX) !== 1 || row.COLUMN_NAME === null) continue;
    if (NON_RANGE_INDEX_TYPES.has(text(row.INDEX_TYPE).toUpperCase())) continue;
    if (text(row.IS_VISIBLE) === "NO" || text(row.IGNORED) === "YES") continue;
    leading.add(text(row.COLUMN_NAME));
  }
  return [...leading];
}

/** information_schema text can arrive as a Buffer (MySQL 8 binary collations). */
function text(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
  return value === null || value === undefined ? "" : String(value);
}

/** Big numbers arrive as strings with bigNumberStrings. */
function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/**
 * A text that changes whenever anything introspectTable reads can change:
 * SHOW CREATE TABLE names every column (invisible ones too) with its full
 * type, nullability and every index, in one round trip instead of three
 * information_schema queries. The AUTO_INCREMENT counter is left out, since
 * it moves with every insert. Undefined when no table or view has the name.
 */
export async function tableFingerprint(pool: MysqlPool, table: string): Promise<string | undefined> {
  try {
    const [rows] = await pool.query({
      sql: `SHOW CREATE TABLE ${quoteIdentifier(table)}`,
      rowsAsArray: true,
    });
    const [name, definition] = (rows as Values[])[0] ?? [];
    return `${text(name)}\n${text(definition).replace(/ AUTO_INCREMENT=\d+/g, "")}`;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ER_NO_SUCH_TABLE") return undefined;
    throw mapMysqlError(error, { table });
  }
}
