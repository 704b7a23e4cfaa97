import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import { dayPredicate } from "./duckdb-catalog";

describe("dayPredicate", () => {
  it("selects every instant of the day and nothing of its neighbours, 29 February included", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    try {
      await connection.run(`CREATE TABLE t (created_at TIMESTAMP)`);
      await connection.run(`INSERT INTO t VALUES
        ('2024-02-28 23:59:59.999999'), ('2024-02-29 00:00:00'), ('2024-02-29 12:00:00'),
        ('2024-02-29 23:59:59.999999'), ('2024-03-01 00:00:00'), (NULL)`);
      const reader = await connection.runAndReadAll(
        `SELECT CAST(created_at AS VARCHAR) FROM t WHERE ${dayPredicate("created_at", "2024-02-29")} ORDER BY 1`,
      );
      expect(reader.getRows().map(([value]) => value)).toEqual([
        "2024-02-29 00:00:00",
        "2024-02-29 12:00:00",
        "2024-02-29 23:59:59.999999",
      ]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it.each([
    ["text after the day", "2024-01-01' OR TRUE --"],
    ["a day that does not exist", "2023-02-29"],
    ["another format", "01/02/2024"],
  ])("refuses %s, naming the field, before any SQL is written", (_, day) => {
    expect(() => dayPredicate("created_at", day)).toThrow(InvalidInputError);
    expect(() => dayPredicate("created_at", day)).toThrow(/^day: /);
  });
});
