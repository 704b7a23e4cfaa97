import { RefusalError } from "../../errors";
import { integerKeyColumn, type Row, type TableSchema } from "../../model/table-schema";
import type { WarehouseDay } from "../../model/warehouse-day";
import type { Warehouse } from "../../ports/warehouse";

/**
 * Wraps the batches of a re-copy so that the replace fails, before the
 * warehouse commits it, unless the new rows keep every key the warehouse holds
 * of the day now: a row's content may change, its key may not leave. A row
 * that left the source may have its only copy in the warehouse; a re-copy
 * never removes it. Without a single integer key, where an update and a
 * delete-plus-insert cannot be told apart, the warehouse's own rule is all
 * there is: no replace leaves a day with fewer rows (Warehouse.replaceDay).
 */
export async function keepHeldRows(
  warehouse: Warehouse,
  at: WarehouseDay,
  schema: TableSchema,
  batches: AsyncIterable<readonly Row[]>,
): Promise<AsyncIterable<readonly Row[]>> {
  const key = integerKeyColumn(schema);
  if (!key) return batches;
  const held = new Set(await warehouse.dayKeys(at, key.name));
  return keepKeys(held, schema.columns.indexOf(key), batches, `${schema.name} ${at.day}`);
}

async function* keepKeys(
  held: ReadonlySet<string>,
  index: number,
  batches: AsyncIterable<readonly Row[]>,
  label: string,
): AsyncGenerator<readonly Row[]> {
  let kept = 0;
  for await (const batch of batches) {
    for (const row of batch) if (held.has(String(row[index]))) kept += 1;
    yield batch;
  }
  const missing = held.size - kept;
  if (missing > 0) {
    throw new RefusalError(
      `${label}: ${missing} ${missing === 1 ? "row" : "rows"} of the warehouse copy (by key) ` +
        `${missing === 1 ? "is" : "are"} no longer in the source's day; re-copying would remove from the ` +
        "warehouse rows that have left the source (the warehouse may hold their only copy), so the copy and " +
        "the source's rows are kept as they are",
      { reason: "changed" },
    );
  }
}
