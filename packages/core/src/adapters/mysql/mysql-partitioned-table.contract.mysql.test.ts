import type { TableSchema } from "../../model/table-schema";
import { createTestAccount, DOCUMENTED_GRANTS } from "../../testing/archiver-account";
import { CONTRACT_BELOW, describePartitionedTableContract } from "../../testing/partitioned-table-contract";
import { createTestDatabase } from "../../testing/test-services";
import { createMysqlPool } from "./create-mysql-pool";
import { createMysqlPartitionedTable } from "./mysql-partitioned-table";
import { createMysqlSourceDatabase } from "./mysql-source-database";
import { quoteIdentifier } from "./quote-identifier";

/** The table's DDL from its schema (COLUMN_TYPE is valid DDL), an index on `created_at` and `partitioning`. */
function createTableSql(schema: TableSchema, partitioning = ""): string {
  const columns = schema.columns.map(
    (c) => `${quoteIdentifier(c.name)} ${c.columnType} ${c.nullable ? "NULL" : "NOT NULL"}`,
  );
  const key = `PRIMARY KEY (${schema.primaryKey.map(quoteIdentifier).join(", ")})`;
  return `CREATE TABLE ${quoteIdentifier(schema.name)} (${[...columns, key, "KEY (`created_at`)"].join(", ")}) ENGINE=InnoDB ${partitioning}`;
}

const P_OLD_AND_PMAX = `PARTITION BY RANGE COLUMNS (created_at) (
  PARTITION p_old VALUES LESS THAN ('${CONTRACT_BELOW}'),
  PARTITION pmax VALUES LESS THAN (MAXVALUE))`;

describePartitionedTableContract("MySQL", async () => {
  const db = await createTestDatabase("ptable_contract");
  // Zero dates are written as they are, as old servers stored them.
  await db.connection.query("SET SESSION sql_mode = ''");
  // The port runs as the archiver's account, with the grants the docs list for emptying partitions.
  const account = await createTestAccount(db.name, [
    ...DOCUMENTED_GRANTS.cleanup(db.name),
    ...DOCUMENTED_GRANTS.partitions(db.name),
  ]);
  const pool = createMysqlPool({ url: account.url, password: undefined }, { connectionLimit: 2 });
  const source = createMysqlSourceDatabase(pool);
  const insert = async (table: string, rows: readonly unknown[][]) => {
    await db.connection.query(`INSERT INTO ${quoteIdentifier(table)} VALUES ?`, [rows]);
  };
  return {
    partitions: createMysqlPartitionedTable(pool),
    source,
    async createTable({ schema, rows }) {
      await db.connection.query(createTableSql(schema, P_OLD_AND_PMAX));
      await insert(schema.name, rows as unknown[][]);
    },
    async createUnpartitionedTable({ schema, rows }) {
      await db.connection.query(createTableSql(schema));
      await insert(schema.name, rows as unknown[][]);
    },
    insertRows: (table, rows) => insert(table, rows as unknown[][]),
    async cleanup() {
      await source.close();
      await account.drop();
      await db.drop();
    },
  };
});
