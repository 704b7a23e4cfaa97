import type { TableSchema } from "../../model/table-schema";
import { describeSourceDatabaseContract } from "../../testing/source-database-contract";
import { createTestDatabase } from "../../testing/test-services";
import { createMysqlPool } from "./create-mysql-pool";
import { createMysqlSourceDatabase } from "./mysql-source-database";
import { quoteIdentifier } from "./quote-identifier";

/** The table's DDL from its described schema: COLUMN_TYPE is valid DDL. */
function createTableSql(schema: TableSchema): string {
  const columns = schema.columns.map(
    (c) => `${quoteIdentifier(c.name)} ${c.columnType} ${c.nullable ? "NULL" : "NOT NULL"}`,
  );
  const key = `PRIMARY KEY (${schema.primaryKey.map(quoteIdentifier).join(", ")})`;
  const indexes = schema.indexLeadingColumns
    .filter((column) => column !== schema.primaryKey[0])
    .map((column) => `KEY (${quoteIdentifier(column)})`);
  return `CREATE TABLE ${quoteIdentifier(schema.name)} (${[...columns, key, ...indexes].join(", ")})`;
}

describeSourceDatabaseContract("MySQL", async (tables) => {
  const db = await createTestDatabase();
  // Zero and partial zero dates are written as they are, as old servers stored them.
  await db.connection.query("SET SESSION sql_mode = ''");
  for (const { schema, rows } of tables) {
    await db.connection.query(createTableSql(schema));
    if (rows.length > 0) {
      await db.connection.query(`INSERT INTO ${quoteIdentifier(schema.name)} VALUES ?`, [rows]);
    }
  }
  const source = createMysqlSourceDatabase(
    createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 2 }),
  );
  return {
    source,
    async cleanup() {
      await source.close();
      await db.drop();
    },
  };
});
