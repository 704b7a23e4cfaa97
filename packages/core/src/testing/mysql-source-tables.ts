import { createMysqlPool } from "../adapters/mysql/create-mysql-pool";
import { createMysqlSourceDatabase } from "../adapters/mysql/mysql-source-database";
import type { SqlQuery } from "../adapters/mysql/sql-query";
import type { CalendarDay } from "../model/calendar-day";
import type { TableSchema } from "../model/table-schema";
import type { SourceDatabase } from "../ports/source-database";
import { createTestDatabase, type TestDatabase } from "./test-services";

/**
 * The tables the MySQL source database tests read (events with gaps, zero
 * dates and keys past 2^63, an empty one, one without an index, one with a
 * composite key, one whose days are woven through its key), in a database of
 * the test file's own: made in its beforeAll, dropped in its afterAll. vitest
 * gives each test file its own instance of this module.
 */
export let db: TestDatabase;
export let source: SourceDatabase;

export const sourceTables = {
  async create(): Promise<void> {
    db = await createTestDatabase();
    await db.connection.query(`
      CREATE TABLE events (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME(6) NULL, KEY (at));
      CREATE TABLE empty_events LIKE events;
      CREATE TABLE plain (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL);
      CREATE TABLE pairs (a INT NOT NULL, b INT NOT NULL, at DATETIME NOT NULL, PRIMARY KEY (a, b));
      CREATE TABLE woven (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL, KEY (at));
      INSERT INTO woven SELECT seq, IF(seq % 2 = 1, '2024-06-01 10:00:00', '2024-06-02 10:00:00') - INTERVAL seq SECOND
        FROM seq_1_to_40;
      INSERT INTO woven VALUES (41, '2024-05-31 23:59:59.999999'), (42, '2024-06-02 00:00:00');
      INSERT INTO events VALUES
        (1, '2024-01-01 00:00:00.000000'), (2, '2024-01-01 12:00:00'),
        (3, '2024-01-05 23:59:59.999999'), (4, '2024-01-06 00:00:00.000000'),
        (5, '2024-02-10 08:00:00'), (6, '2024-02-29 23:59:59.999999'), (7, '2024-03-01 00:00:00'),
        (18446744073709551615, '2024-04-01 01:00:00'), (18446744073709551614, '2024-04-01 02:00:00'),
        (8, '2024-04-01 03:00:00'), (9, NULL);
      SET SESSION sql_mode = '';
      INSERT INTO events VALUES
        (100, '0000-00-00 00:00:00'), (101, '2023-06-00 10:00:00'), (102, '2023-00-15 00:00:00'),
        (103, '2024-03-00 12:00:00');
      SET SESSION sql_mode = DEFAULT;
      INSERT INTO plain VALUES (1, '2024-01-01 10:00:00'), (2, '2024-01-02 10:00:00');
      INSERT INTO pairs VALUES (1, 1, '2024-01-01 10:00:00');`);
    source = createMysqlSourceDatabase(
      createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 2 }),
    );
  },
  async drop(): Promise<void> {
    await source?.close();
    await db?.drop();
  },
};

export async function describe_(table: string): Promise<TableSchema> {
  const schema = await source.describeTable(table);
  if (!schema) throw new Error(`${table} not found`);
  return schema;
}

export async function idsOf(table: string, day: CalendarDay): Promise<string[]> {
  const stream = source.streamDay(await describe_(table), "at", day, 1000);
  const ids: string[] = [];
  for await (const batch of stream.batches) ids.push(...batch.map((row) => String(row[0])));
  return ids;
}

export async function explain(query: SqlQuery): Promise<Record<string, unknown>[]> {
  const [rows] = await db.connection.query(`EXPLAIN ${query.sql}`, [...query.values]);
  return rows as Record<string, unknown>[];
}
