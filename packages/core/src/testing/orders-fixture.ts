import type { CalendarDay } from "../model/calendar-day";
import type { Destination } from "../model/destination";
import type { LogicalType } from "../model/logical-type";
import type { Row, TableSchema } from "../model/table-schema";
import type { WarehouseDay } from "../model/warehouse-day";
import type { ReferencingKey } from "../ports/day-deleter";

/** A two-column source table for tests: the key `id` (of type `idType`) and the filter column `created_at`. */
export function ordersSchema(
  idType: LogicalType = { kind: "uint64" },
  extra: TableSchema["columns"] = [],
): TableSchema {
  return {
    name: "orders",
    columns: [
      {
        name: "id",
        dataType: "bigint",
        columnType: "bigint",
        nullable: false,
        logicalType: idType,
      },
      {
        name: "created_at",
        dataType: "datetime",
        columnType: "datetime",
        nullable: false,
        logicalType: { kind: "datetime", fractionDigits: 0, zone: "local" },
      },
      ...extra,
    ],
    primaryKey: ["id"],
    indexLeadingColumns: ["created_at"],
  };
}

/** A row of `ordersSchema`. */
export const order = (id: string, day: string, time = "12:00:00"): Row => [id, `${day} ${time}`];

/** `rows` as an async stream of batches (one batch by default). */
export async function* batchesOf(rows: readonly Row[], size = rows.length): AsyncIterable<readonly Row[]> {
  for (let start = 0; start < rows.length; start += Math.max(size, 1)) yield rows.slice(start, start + size);
}

/** The day `day` of `destination`, cut by `created_at` (the fixtures' filter column) unless told otherwise. */
export function dayOf(destination: Destination, day: CalendarDay, filterColumn = "created_at"): WarehouseDay {
  return { destination, filterColumn, day };
}

/** A foreign key of `shop.items` (order_id) that references `orders` (id), ON DELETE CASCADE. */
export function itemsReferencingOrders(constraint = "fk_items_order"): ReferencingKey {
  return {
    constraint,
    childSchema: "shop",
    childTable: "items",
    childColumns: ["order_id"],
    parentColumns: ["id"],
    onDelete: "CASCADE",
    selfReferencing: false,
  };
}
