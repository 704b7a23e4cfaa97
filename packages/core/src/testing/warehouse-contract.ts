import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefusalError, TransientError } from "../errors";
import type { Destination } from "../model/destination";
import type { Row, TableSchema } from "../model/table-schema";
import type { WarehouseDay } from "../model/warehouse-day";
import type { Warehouse } from "../ports/warehouse";
import { dayRecordContract } from "./day-record-contract";
import { batchesOf, dayOf } from "./orders-fixture";
import { runRecordContract } from "./run-record-contract";
import { uniqueName } from "./test-services";
import {
  allTypesRows,
  allTypesSchema,
  failingHalfway,
  keyedRows,
  keyedSchema,
} from "./warehouse-contract-fixtures";
import { figuresContract } from "./warehouse-figures-contract";

/** What a warehouse adapter hands the contract suite. */
export interface WarehouseContractSubject {
  readonly warehouse: Warehouse;
  /**
   * The day's rows, the schema's columns in canonical values (LogicalType),
   * ordered by the first column. `schema` says which canonical form to print
   * (fraction digits, float32); an adapter may ignore it.
   */
  readDay(at: WarehouseDay, schema: TableSchema): Promise<Row[]>;
  /** Removes what the suite created and closes the warehouse. */
  cleanup(): Promise<void>;
}

const DAY = "2024-05-06";

/**
 * The behaviour every Warehouse adapter must have (see ports/warehouse.ts):
 * dataset and table creation, schema evolution, exact round trips of every
 * logical type, atomic day replacement and the figures and keys cleanup relies on;
 * the durable day record and the run history.
 * Each test uses its own table.
 */
export function describeWarehouseContract(
  name: string,
  setup: () => Promise<WarehouseContractSubject>,
): void {
  describe(`Warehouse contract: ${name}`, () => {
    let subject: WarehouseContractSubject;
    const dataset = uniqueName("contract");
    const table = (prefix: string): Destination => ({ dataset, table: uniqueName(prefix) });
    const w = () => subject.warehouse;

    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("creates the dataset and the table, and ensureTable is idempotent", async () => {
      const destination = { dataset: uniqueName("contract_new"), table: uniqueName("orders") };
      const schema = keyedSchema();
      expect(await w().countRows(destination)).toBe(0);
      await w().ensureTable(destination, schema, "created_at");
      await w().ensureTable(destination, schema, "created_at");
      expect(await w().countRows(destination)).toBe(0);
      await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, [1, 2])));
      await w().ensureTable(destination, schema, "created_at");
      expect(await w().countRows(destination)).toBe(2);
    });

    it("adds a new source column and keeps the rows already copied", async () => {
      const destination = table("evolve");
      const before = keyedSchema();
      await w().ensureTable(destination, before, "created_at");
      await w().replaceDay(dayOf(destination, "2024-05-05"), before, batchesOf(keyedRows("2024-05-05", [1])));
      const after = keyedSchema({ extraColumn: true });
      await w().ensureTable(destination, after, "created_at");
      const rows = keyedRows(DAY, [2, 3], { extraColumn: true });
      await w().replaceDay(dayOf(destination, DAY), after, batchesOf(rows));
      expect(await subject.readDay(dayOf(destination, DAY), after)).toEqual(rows);
      const old = await subject.readDay(dayOf(destination, "2024-05-05"), after);
      expect(old).toEqual(keyedRows("2024-05-05", [1]).map((row) => [...row, null]));
    });

    it("refuses an incompatible type change with a RefusalError naming the column", async () => {
      const destination = table("incompatible");
      await w().ensureTable(destination, keyedSchema(), "created_at");
      await w().replaceDay(dayOf(destination, DAY), keyedSchema(), batchesOf(keyedRows(DAY, [1])));
      const changed = keyedSchema({ noteKind: "datetime" });
      const attempt = w().ensureTable(destination, changed, "created_at");
      await expect(attempt).rejects.toBeInstanceOf(RefusalError);
      await expect(attempt).rejects.toThrow(/note/);
      expect(await subject.readDay(dayOf(destination, DAY), keyedSchema())).toEqual(keyedRows(DAY, [1]));
    });

    it("round-trips every logical type exactly, extremes and NULLs included", async () => {
      const destination = table("types");
      const schema = allTypesSchema();
      const rows = allTypesRows(DAY);
      await w().ensureTable(destination, schema, "at");
      const { rowsWritten } = await w().replaceDay(dayOf(destination, DAY, "at"), schema, batchesOf(rows));
      expect(rowsWritten).toBe(rows.length);
      expect(await subject.readDay(dayOf(destination, DAY, "at"), schema)).toEqual(rows);
    });

    it("replacing a day twice leaves exactly one copy, and the second copy wins", async () => {
      const destination = table("twice");
      const schema = keyedSchema();
      await w().ensureTable(destination, schema, "created_at");
      const first = keyedRows(DAY, [1, 2, 3]);
      expect((await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(first))).rowsWritten).toBe(3);
      expect((await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(first))).rowsWritten).toBe(3);
      expect(await subject.readDay(dayOf(destination, DAY), schema)).toEqual(first);
      const second = keyedRows(DAY, [7, 8, 9]);
      expect((await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(second))).rowsWritten).toBe(3);
      expect(await subject.readDay(dayOf(destination, DAY), schema)).toEqual(second);
      expect(await w().countRows(destination)).toBe(3);
    });

    it("keeps the day exactly as it was when the rows stop halfway with an error", async () => {
      const destination = table("halfway");
      const schema = keyedSchema();
      await w().ensureTable(destination, schema, "created_at");
      const previous = keyedRows(DAY, [1, 2]);
      await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(previous));
      const replacement = keyedRows(
        DAY,
        Array.from({ length: 3000 }, (_, i) => 100 + i),
      );
      const failing = w().replaceDay(dayOf(destination, DAY), schema, failingHalfway(replacement));
      await expect(failing).rejects.toThrow("source connection lost");
      expect(await subject.readDay(dayOf(destination, DAY), schema)).toEqual(previous);

      const fresh = "2024-05-07";
      const firstTime = w().replaceDay(
        dayOf(destination, fresh),
        schema,
        failingHalfway(keyedRows(fresh, [5, 6])),
      );
      await expect(firstTime).rejects.toThrow("source connection lost");
      expect(await subject.readDay(dayOf(destination, fresh), schema)).toEqual([]);
      expect(await w().countRows(destination)).toBe(2);
    });

    it("refuses to empty a copied day when no rows come, and keeps it; an empty new day is fine", async () => {
      const destination = table("empty");
      const schema = keyedSchema();
      await w().ensureTable(destination, schema, "created_at");
      const copied = keyedRows(DAY, [1, 2]);
      await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(copied));
      const emptied = w().replaceDay(dayOf(destination, DAY), schema, batchesOf([]));
      await expect(emptied).rejects.toBeInstanceOf(RefusalError);
      await expect(emptied).rejects.toThrow(/source has no rows for the day but the warehouse holds 2/);
      expect(await subject.readDay(dayOf(destination, DAY), schema)).toEqual(copied);
      const fresh = await w().replaceDay(dayOf(destination, "2024-05-07"), schema, batchesOf([]));
      expect(fresh.rowsWritten).toBe(0);
    });

    it("tells whether a table exists, and creates nothing by asking", async () => {
      const destination = table("exists");
      expect(await w().hasTable(destination)).toBe(false);
      expect(await w().hasTable({ ...destination, dataset: "no_such_dataset" })).toBe(false);
      expect(await w().hasTable(destination)).toBe(false);
      await w().ensureTable(destination, keyedSchema(), "created_at");
      expect(await w().hasTable(destination)).toBe(true);
    });

    it("refuses to replace a copied day with fewer rows, and keeps it; more rows are fine", async () => {
      const destination = table("shrink");
      const schema = keyedSchema();
      await w().ensureTable(destination, schema, "created_at");
      const copied = keyedRows(DAY, [1, 2, 3]);
      await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(copied));
      const shrunk = w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, [1, 2])));
      await expect(shrunk).rejects.toBeInstanceOf(RefusalError);
      await expect(shrunk).rejects.toThrow(
        /source has 2 rows for the day but the warehouse holds 3; refusing to shrink/,
      );
      expect(await subject.readDay(dayOf(destination, DAY), schema)).toEqual(copied);
      const grown = keyedRows(DAY, [1, 2, 3, 4]);
      expect((await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(grown))).rowsWritten).toBe(4);
      expect(await subject.readDay(dayOf(destination, DAY), schema)).toEqual(grown);
    });

    it("leaves neighbouring days untouched; both ends of the day belong to it", async () => {
      const destination = table("neighbours");
      const schema = keyedSchema();
      await w().ensureTable(destination, schema, "created_at");
      const dayBefore = keyedRows("2024-05-05", [1, 2], { times: ["00:00:00", "23:59:59.999999"] });
      const dayAfter = keyedRows("2024-05-07", [5, 6], { times: ["00:00:00", "23:59:59.999999"] });
      await w().replaceDay(dayOf(destination, "2024-05-05"), schema, batchesOf(dayBefore));
      await w().replaceDay(dayOf(destination, "2024-05-07"), schema, batchesOf(dayAfter));
      const edges = keyedRows(DAY, [3, 4], { times: ["00:00:00", "23:59:59.999999"] });
      expect((await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(edges))).rowsWritten).toBe(2);
      expect((await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(edges))).rowsWritten).toBe(2);
      expect(await subject.readDay(dayOf(destination, "2024-05-05"), schema)).toEqual(dayBefore);
      expect(await subject.readDay(dayOf(destination, DAY), schema)).toEqual(edges);
      expect(await subject.readDay(dayOf(destination, "2024-05-07"), schema)).toEqual(dayAfter);
      expect(await w().countRows(destination)).toBe(6);
    });

    figuresContract(w, table);

    it("never duplicates when two replaceDay calls on one table run at the same time", async () => {
      const destination = table("concurrent");
      const schema = keyedSchema();
      await w().ensureTable(destination, schema, "created_at");
      const a = keyedRows(
        DAY,
        Array.from({ length: 2500 }, (_, i) => i + 1),
      );
      // As many rows as a: whichever commits second replaces the first without shrinking the day.
      const b = keyedRows(
        DAY,
        Array.from({ length: 2500 }, (_, i) => i + 90_001),
      );
      const other = keyedRows("2024-05-07", [42]);
      const results = await Promise.allSettled([
        w().replaceDay(dayOf(destination, DAY), schema, batchesOf(a, 500)),
        w().replaceDay(dayOf(destination, DAY), schema, batchesOf(b)),
        w().replaceDay(dayOf(destination, "2024-05-07"), schema, batchesOf(other)),
      ]);
      for (const result of results) {
        if (result.status === "rejected") expect(result.reason).toBeInstanceOf(TransientError);
      }
      const day = await subject.readDay(dayOf(destination, DAY), schema);
      expect([a, b, []]).toContainEqual(day);
      const succeeded = results.filter((result) => result.status === "fulfilled").length;
      if (succeeded === results.length) {
        expect(await subject.readDay(dayOf(destination, "2024-05-07"), schema)).toEqual(other);
      }
    });

    dayRecordContract(w, dataset);
    runRecordContract(w, dataset);
  });
}
