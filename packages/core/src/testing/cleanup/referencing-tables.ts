import type { CalendarDay } from "../../model/calendar-day";
import type { DayDeleter } from "../../ports/day-deleter";
import { uniqueName } from "../test-services";
import { fx } from "./file-fixture";

// Parent tables and the child tables that reference them, for the foreign key tests. The fixture's close drops
// the database with every parent, child and self-referencing table in it (the foreign keys between them must not
// stand in the way); the suite's leak check fails a file that leaves the database behind.

/** Every row of `table`, every column, by id. */
export async function rowsOf(table: string): Promise<Record<string, unknown>[]> {
  return fx.query<Record<string, unknown>>(`SELECT * FROM \`${table}\` ORDER BY id`);
}

/** A parent table of `perDay` rows on each day, ids 1.. in time order. */
export async function parentTable(days: readonly CalendarDay[], perDay: number): Promise<string> {
  const table = uniqueName("orders");
  await fx.query(
    `CREATE TABLE \`${table}\` (
       id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
       created_at DATETIME NOT NULL,
       qty INT NOT NULL,
       KEY (created_at)
     ) ENGINE=InnoDB`,
  );
  for (const day of days) {
    for (let i = 0; i < perDay; i++) {
      await fx.query(`INSERT INTO \`${table}\` (created_at, qty) VALUES (?, ?)`, [
        `${day} ${String(i + 1).padStart(2, "0")}:00:00`,
        i,
      ]);
    }
  }
  return table;
}

export type Rule = "CASCADE" | "SET NULL" | "RESTRICT" | "NO ACTION";

/** A child table whose `order_id` references `parent(id)` with `rule`; returns its name and constraint. */
export async function childTable(parent: string, rule: Rule): Promise<{ child: string; constraint: string }> {
  const child = uniqueName("items");
  const constraint = uniqueName("fk_items");
  await fx.query(
    `CREATE TABLE \`${child}\` (
       id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
       order_id BIGINT UNSIGNED NULL,
       sku VARCHAR(16) NOT NULL,
       KEY idx_order (order_id),
       CONSTRAINT \`${constraint}\` FOREIGN KEY (order_id) REFERENCES \`${parent}\` (id) ON DELETE ${rule}
     ) ENGINE=InnoDB`,
  );
  return { child, constraint };
}

export async function addChildRows(child: string, orderIds: readonly (number | null)[]): Promise<void> {
  for (const [i, orderId] of orderIds.entries()) {
    await fx.query(`INSERT INTO \`${child}\` (order_id, sku) VALUES (?, ?)`, [orderId, `sku-${i}`]);
  }
}

/** Runs `hook` once, right before the `n`th chunk delete (verification passed, chunks before it committed). */
export function beforeChunk(deleter: DayDeleter, n: number, hook: () => Promise<unknown>): DayDeleter {
  let calls = 0;
  return {
    ...deleter,
    async deleteChunk(...args) {
      if (++calls === n) await hook();
      return deleter.deleteChunk(...args);
    },
  };
}
