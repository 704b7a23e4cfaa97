import { openSharedDatabase } from "../adapters/duckdb/shared-database";
import type { CalendarDay } from "../model/calendar-day";

// Faults a cleanup test injects into the warehouse of its fixture, behind the adapter's back.

/** Deletes one row of the day from the warehouse behind the adapter's back, as a lost row would leave it. */
export async function dropOneWarehouseRow(
  fx: { readonly warehousePath: string },
  table: string,
  day: CalendarDay,
): Promise<void> {
  const database = await openSharedDatabase(fx.warehousePath);
  const connection = await database.instance.connect();
  try {
    await connection.run(
      `DELETE FROM archive."${table}" WHERE rowid = (SELECT MIN(rowid) FROM archive."${table}"
         WHERE created_at >= TIMESTAMP '${day} 00:00:00' AND created_at < TIMESTAMP '${day} 00:00:00' + INTERVAL 1 DAY)`,
    );
  } finally {
    connection.closeSync();
    database.release();
  }
}

/** Drops a table of the fixture's warehouse behind the adapter's back, as an operator resetting it would. */
export async function dropWarehouseTable(
  fx: { readonly warehousePath: string },
  table: string,
): Promise<void> {
  const database = await openSharedDatabase(fx.warehousePath);
  const connection = await database.instance.connect();
  try {
    await connection.run(`DROP TABLE archive."${table}"`);
  } finally {
    connection.closeSync();
    database.release();
  }
}
