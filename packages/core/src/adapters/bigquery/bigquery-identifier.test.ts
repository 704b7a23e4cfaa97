import { beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import type { Destination } from "../../model/destination";
import type { Warehouse } from "../../ports/warehouse";
import { batchesOf, order, ordersSchema } from "../../testing/orders-fixture";
import { bigQueryIdentifier } from "./bigquery-identifier";
import { createBigQueryWarehouse } from "./bigquery-warehouse";
import { type BigQueryDouble, bigQueryDouble } from "./testing/client-double";
import { pagesOf } from "./testing/pages-of";

// A column's name comes from the live MySQL schema (MySQL takes `a``b` and
// `a\b` as names) and goes into BigQuery SQL between backticks; BigQuery runs
// multi-statement scripts. Such a name is refused before any statement is
// built, so before any job.
const BREAKING = [
  ["a backtick and a second statement", "id`; DROP TABLE archive.orders; --"],
  ["two backticks", "id` FROM x; SELECT `y"],
  ["an escaped backtick", "a\\`b"],
  ["a line break", "new\nline"],
  ["a space", "with space"],
  ["a semicolon", "semi;colon"],
  ["a quote", "quote'd"],
  ["nothing", ""],
  ["301 characters", "c".repeat(301)],
] as const;

describe("bigQueryIdentifier", () => {
  it.each([
    ["column", "created_at"],
    ["column", "_id2"],
    ["column", "2024_total"],
    ["table", "_archiver_days"],
    ["dataset", "archive"],
    ["project", "acme-data"],
    ["project", "p1"],
    ["project", "example.com:acme-data"],
  ] as const)("takes the %s %s as it is", (kind, name) => {
    expect(bigQueryIdentifier(name, kind)).toBe(name);
  });

  it.each(BREAKING)("refuses a column with %s, naming it, at most 64 characters of it", (_case, name) => {
    let error: unknown;
    try {
      bigQueryIdentifier(name, "column");
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe("column");
    expect((error as InvalidInputError).message).toContain(JSON.stringify(name.slice(0, 64)).slice(0, -1));
    expect((error as InvalidInputError).message.length).toBeLessThan(200);
  });

  it.each([
    ["project", "acme`.x"],
    ["project", "Acme Data"],
    ["dataset", "archive`; DROP SCHEMA y; --"],
    ["table", "orders$20240101"],
    ["table", "orders-2024"],
  ] as const)("refuses the %s %j", (kind, name) => {
    expect(() => bigQueryIdentifier(name, kind)).toThrow(new RegExp(`^${kind}: `));
  });
});

describe("BigQuery warehouse: a name that would break a statement", () => {
  const target: Destination = { dataset: "archive", table: "orders" };
  const day = { destination: target, filterColumn: "created_at", day: "2024-01-01" } as const;
  let bq: BigQueryDouble;
  let warehouse: Warehouse;

  beforeEach(() => {
    bq = bigQueryDouble();
    warehouse = createBigQueryWarehouse({ project: "acme", location: "EU", client: bq.client });
  });

  /** The refusal of `read`: an InvalidInputError on `field`, with no job created for it. */
  async function refusedWithoutJob(field: string, read: () => Promise<unknown>): Promise<void> {
    await expect(read()).rejects.toSatisfy(
      (error) => error instanceof InvalidInputError && error.field === field,
    );
    expect(bq.callsOf("query")).toEqual([]);
    expect(bq.callsOf("upload")).toEqual([]);
  }

  it.each(BREAKING)("refuses a key column with %s before any query job", async (_case, key) => {
    await refusedWithoutJob("column", () => warehouse.dayFigures(day, key));
    await refusedWithoutJob("column", () =>
      warehouse.daysFigures({ destination: target, filterColumn: "created_at", days: ["2024-01-01"] }, key),
    );
    await refusedWithoutJob("column", () => pagesOf(warehouse.dayKeys(day, key, 10)));
  });

  it("refuses a filter column, a table, a dataset and a project before any job", async () => {
    const column = "created_at` >= '0' OR TRUE; --";
    await refusedWithoutJob("column", () => warehouse.dayFigures({ ...day, filterColumn: column }));
    await refusedWithoutJob("table", () => warehouse.countRows({ ...target, table: "orders`; --" }));
    await refusedWithoutJob("dataset", () => warehouse.countRows({ ...target, dataset: "a`b" }));
    await refusedWithoutJob("project", () => warehouse.countRows({ ...target, project: "acme`x" }));
    const elsewhere = createBigQueryWarehouse({ project: "acme`; --", location: "EU", client: bq.client });
    await refusedWithoutJob("project", () => elsewhere.countRows(target));
  });

  it("refuses a day's load on a filter column that would break a statement, before the load job", async () => {
    const rows = batchesOf([order("1", "2024-01-01")]);
    await refusedWithoutJob("column", () =>
      warehouse.replaceDay({ ...day, filterColumn: "created_at`x" }, ordersSchema(), rows),
    );
  });
});
