import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { InvalidInputError } from "../../errors";
import { explain, source, sourceTables } from "../../testing/mysql-source-tables";
import { firstValueQuery } from "./day-queries";

beforeAll(sourceTables.create);
afterAll(sourceTables.drop);

describe("firstDayWithRows", () => {
  const first = (from: string, before: string, table = "events") =>
    source.firstDayWithRows(table, "at", from, before);

  it("finds the next day with rows across gaps", async () => {
    expect(await first("2024-01-01", "2025-01-01")).toBe("2024-01-01");
    expect(await first("2024-01-02", "2025-01-01")).toBe("2024-01-05");
    expect(await first("2024-01-07", "2025-01-01")).toBe("2024-02-10");
    expect(await first("2024-03-02", "2025-01-01")).toBe("2024-04-01");
    expect(await first("2024-04-02", "2025-01-01")).toBeUndefined();
  });

  it("includes `from` and excludes `before`", async () => {
    expect(await first("2024-01-05", "2024-01-06")).toBe("2024-01-05");
    expect(await first("2024-01-07", "2024-02-10")).toBeUndefined();
    expect(await first("2024-01-07", "2024-02-11")).toBe("2024-02-10");
    expect(await first("2024-02-10", "2024-02-10")).toBeUndefined();
  });

  it("steps over zero and partial zero dates, which name no day", async () => {
    expect(await first("1000-01-01", "2024-01-01")).toBeUndefined();
    expect(await first("2023-01-01", "2025-01-01")).toBe("2024-01-01");
    expect(await first("2024-03-01", "2024-04-02")).toBe("2024-03-01");
  });

  it("probes on past a partial zero date once, however many probes of a window ran into it", async () => {
    // Every day from 2023-05-20 to 2023-05-31 first meets 2023-06-00 10:00:00, which names no day.
    const froms = Array.from({ length: 12 }, (_, i) => `2023-05-${String(20 + i).padStart(2, "0")}`);
    const probesOn = vi.spyOn(source, "firstDayWithRows");
    try {
      const firsts = await source.firstDaysWithRows("events", "at", [...froms, "2024-01-02"], "2025-01-01");
      expect(firsts).toEqual([...froms.map(() => "2024-01-01"), "2024-01-05"]);
      expect(probesOn.mock.calls).toEqual([["events", "at", "2023-06-01", "2025-01-01"]]);
    } finally {
      probesOn.mockRestore();
    }
  });

  it("finds nothing in an empty table", async () => {
    expect(await first("1000-01-01", "9999-12-31", "empty_events")).toBeUndefined();
  });

  it("is one index probe on an indexed column, whatever the table's size", async () => {
    const plan = await explain(firstValueQuery("events", "at", "2024-01-01", "2025-01-01"));
    expect(plan).toHaveLength(1);
    expect(plan[0]?.Extra).toBe("Select tables optimized away");
  });

  it("names a missing table or column as invalid input", async () => {
    await expect(first("2024-01-01", "2025-01-01", "no_such_table")).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(source.firstDayWithRows("events", "nope", "2024-01-01", "2025-01-01")).rejects.toMatchObject(
      {
        field: "column",
      },
    );
  });
});
