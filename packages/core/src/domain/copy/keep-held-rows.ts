import { VerificationError } from "../../errors";
import type { Warehouse } from "../../ports/warehouse";
import type { CalendarDay } from "../days/calendar-day";
import type { Destination } from "../types/destination";
import { integerKeyColumn, type Row, type TableSchema } from "../types/table-schema";

/** What the warehouse holds of a day before a re-copy replaces it. */
type Held =
  /** A keyed table: the keys of the rows it holds, and where the key sits in a row. */
  | { readonly kind: "keys"; readonly keys: ReadonlySet<string>; readonly index: number }
  /** A table without a single integer key: how many rows it holds. */
  | { readonly kind: "rows"; readonly rows: number };

/**
 * Wraps the batches of a re-copy so that the replace fails, before the
 * warehouse commits it, unless the new rows keep every row the warehouse
 * holds of the day now: by key for a keyed table (a row's content may change,
 * its key may not leave), by count without a key (where an update and a
 * delete-plus-insert cannot be told apart). A row that left the source may
 * have its only copy in the warehouse; a re-copy never removes it.
 */
export async function keepHeldRows(
  warehouse: Warehouse,
  target: {
    readonly destination: Destination;
    readonly schema: TableSchema;
    readonly filterColumn: string;
    readonly day: CalendarDay;
  },
  batches: AsyncIterable<readonly Row[]>,
): Promise<AsyncIterable<readonly Row[]>> {
  const { destination, schema, filterColumn, day } = target;
  const key = integerKeyColumn(schema);
  const held: Held = key
    ? {
        kind: "keys",
        keys: new Set(await warehouse.dayKeys(destination, filterColumn, day, key.name)),
        index: schema.columns.indexOf(key),
      }
    : { kind: "rows", rows: (await warehouse.dayFigures(destination, filterColumn, day)).rows };
  return check(held, batches, `${schema.name} ${day}`);
}

async function* check(
  held: Held,
  batches: AsyncIterable<readonly Row[]>,
  label: string,
): AsyncGenerator<readonly Row[]> {
  let rows = 0;
  let kept = 0;
  for await (const batch of batches) {
    rows += batch.length;
    if (held.kind === "keys") {
      for (const row of batch) if (held.keys.has(String(row[held.index]))) kept += 1;
    }
    yield batch;
  }
  const missing = held.kind === "keys" ? held.keys.size - kept : held.rows - rows;
  if (missing > 0) {
    const what =
      held.kind === "keys"
        ? `${missing} ${missing === 1 ? "row" : "rows"} of the warehouse copy (by key) ${missing === 1 ? "is" : "are"} no longer in the source's day`
        : `the warehouse copy holds ${held.rows} rows, the source now ${rows}`;
    throw new VerificationError(
      `${label}: ${what}; re-copying would remove from the warehouse rows that have left the source (the ` +
        "warehouse may hold their only copy), so the copy and the source's rows are kept as they are",
      { reason: "changed" },
    );
  }
}
