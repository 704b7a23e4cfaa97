import type { TableSchema } from "../../model/table-schema";
import { describeDayDeleterContract } from "../../testing/day-deleter-contract";
import { createTestDatabase } from "../../testing/test-services";
import { createMysqlPool } from "./create-mysql-pool";
import { createMysqlDayDeleter } from "./mysql-day-deleter";
import { createMysqlSourceDatabase } from "./mysql-source-database";
import { quoteIdentifier } from "./quote-identifier";

/** The table's DDL from its schema: COLUMN_TYPE is valid DDL. */
function createTableSql(schema: TableSchema): string {
  const columns = schema.columns.map(
    (c) => `${quoteIdentifier(c.name)} ${c.columnType} ${c.nullable ? "NULL" : "NOT NULL"}`,
  );
  const key =
    schema.primaryKey.length > 0
      ? [`PRIMARY KEY (${schema.primaryKey.map(quoteIdentifier).join(", ")})`]
      : [];
  const indexes = schema.indexLeadingColumns
    .filter((column) => column !== schema.primaryKey[0])
    .map((column) => `KEY (${quoteIdentifier(column)})`);
  return `CREATE TABLE ${quoteIdentifier(schema.name)} (${[...columns, ...key, ...indexes].join(", ")}) ENGINE=InnoDB`;
}

/**
 * Both ways a chunk is deleted: on MariaDB 10.5+ one `DELETE … RETURNING`
 * proves the rows it removed; on MySQL (forced here) a locked read proves
 * them, then the delete.
 */
for (const [way, returning] of [
  ["MariaDB, DELETE … RETURNING", true],
  ["MySQL's way, a locked read then DELETE", false],
] as const) {
  describeDayDeleterContract(way, async () => {
    const db = await createTestDatabase(returning ? "deleter_contract" : "deleter_contract_locked");
    // Partial zero dates are written as they are, as old servers stored them.
    await db.connection.query("SET SESSION sql_mode = ''");
    const pool = createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 2 });
    const source = createMysqlSourceDatabase(pool);
    return {
      deleter: createMysqlDayDeleter(pool, { returning }),
      source,
      async createTable({ schema, rows }) {
        await db.connection.query(createTableSql(schema));
        await db.connection.query(`INSERT INTO ${quoteIdentifier(schema.name)} VALUES ?`, [rows]);
      },
      async deleteRows(table, column, value, limit) {
        await db.connection.query(
          `DELETE FROM ${quoteIdentifier(table)} WHERE ${quoteIdentifier(column)} = ? LIMIT ${Number(limit)}`,
          [value],
        );
      },
      async values(table, column) {
        const [rows] = await db.connection.query({
          sql: `SELECT CAST(${quoteIdentifier(column)} AS CHAR) FROM ${quoteIdentifier(table)}`,
          rowsAsArray: true,
        });
        return (rows as unknown[][]).map(([value]) => String(value));
      },
      async addDeleteTrigger(table, name) {
        await db.connection.query(
          `CREATE TRIGGER ${quoteIdentifier(name)} BEFORE DELETE ON ${quoteIdentifier(table)} ` +
            "FOR EACH ROW SET @archiver_contract_trigger = 1",
        );
      },
      async addReference(table, { constraint, childTable, referenced }) {
        const schema = await source.describeTable(table);
        const id = schema?.columns.find((column) => column.name === "id");
        if (!id) throw new Error(`${table} has no id`);
        await db.connection.query(
          `CREATE TABLE ${quoteIdentifier(childTable)} (n INT AUTO_INCREMENT PRIMARY KEY, parent_id ${id.columnType} NULL, ` +
            `CONSTRAINT ${quoteIdentifier(constraint)} FOREIGN KEY (parent_id) REFERENCES ${quoteIdentifier(table)} (id) ` +
            "ON DELETE RESTRICT) ENGINE=InnoDB",
        );
        await db.connection.query(`INSERT INTO ${quoteIdentifier(childTable)} (parent_id) VALUES ?`, [
          referenced.map((value) => [value]),
        ]);
      },
      async addSelfReference(table, constraint) {
        await db.connection.query(
          `ALTER TABLE ${quoteIdentifier(table)} ADD CONSTRAINT ${quoteIdentifier(constraint)} ` +
            "FOREIGN KEY (parent_id) REFERENCES " +
            `${quoteIdentifier(table)} (id) ON DELETE RESTRICT`,
        );
      },
      async cleanup() {
        await source.close();
        await db.drop();
      },
    };
  });
}
