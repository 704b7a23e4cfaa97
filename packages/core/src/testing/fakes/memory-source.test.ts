import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import { order, ordersSchema } from "../orders-fixture";
import { describeSourceDatabaseContract } from "../source-database-contract";
import { createMemorySource } from "./memory-source";

describeSourceDatabaseContract("in memory", async (tables) => {
  const source = createMemorySource();
  for (const { schema, rows } of tables) source.createTable(schema, rows);
  return { source, cleanup: () => source.close() };
});

describe("createMemorySource", () => {
  it("lets a test change a table's rows, and its figures follow", async () => {
    const source = createMemorySource();
    const schema = ordersSchema();
    source.createTable(schema, [order("1", "2024-01-01"), order("2", "2024-01-01")]);
    const before = await source.dayFigures(schema, "created_at", "2024-01-01");

    source.updateRows(
      "orders",
      (row) => row[0] === "2",
      (row) => [row[0], "2024-01-01 13:00:00"],
    );
    const updated = await source.dayFigures(schema, "created_at", "2024-01-01");
    expect(updated.rows).toBe(2);
    expect(updated.fingerprint).not.toBe(before.fingerprint);

    source.insertRows("orders", [order("3", "2024-01-02")]);
    expect(source.deleteRows("orders", (row) => row[0] === "1")).toBe(1);
    expect(source.rows("orders").map((row) => row[0])).toEqual(["2", "3"]);
    expect(await source.firstDayWithRows("orders", "created_at", "2024-01-01", "2025-01-01")).toBe(
      "2024-01-01",
    );

    source.dropTable("orders");
    expect(await source.describeTable("orders")).toBeUndefined();
    expect(() => source.rows("orders")).toThrow(InvalidInputError);
  });

  it("refuses a row that does not fit the table's columns", () => {
    const source = createMemorySource();
    expect(() => source.createTable(ordersSchema(), [["1"]])).toThrow(/1 values for 2 columns/);
  });
});
