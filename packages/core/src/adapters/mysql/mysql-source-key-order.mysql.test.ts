import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarDay } from "../../model/calendar-day";
import { db, describe_, explain, source, sourceTables } from "../../testing/mysql-source-tables";
import { dayRowsByKeyQuery, dayRowsQuery } from "./day-queries";

// A day read in key order, as a re-copy asks for it (streamDay `inKeyOrder`),
// on each of the adapter's three reads; the copy's own statements are as
// before (mysql-source-database.mysql.test.ts).

beforeAll(sourceTables.create);
afterAll(sourceTables.drop);

async function idsInKeyOrder(table: string, day: CalendarDay): Promise<string[]> {
  const stream = source.streamDay(await describe_(table), "at", day, 7, { inKeyOrder: true });
  const ids: string[] = [];
  for await (const batch of stream.batches) ids.push(...batch.map((row) => String(row[0])));
  return ids;
}

describe("streamDay in key order", () => {
  it("reads a day of sparse keys through the filter column's index, sorted by key", async () => {
    expect(await idsInKeyOrder("events", "2024-04-01")).toEqual([
      "8",
      "18446744073709551614",
      "18446744073709551615",
    ]);
    const events = await describe_("events");
    expect(dayRowsQuery(events, "at", "2024-04-01", events.columns[0]).sql).toMatch(/ ORDER BY `id`$/);
  });

  it("reads a day of dense keys along the primary key, in its order, without a filesort", async () => {
    // Times fall as ids rise on woven's days.
    expect(await idsInKeyOrder("woven", "2024-06-01")).toEqual(
      Array.from({ length: 20 }, (_, i) => String(2 * i + 1)),
    );
    const woven = await describe_("woven");
    const key = woven.columns[0];
    if (!key) throw new Error("no key");
    const ordered = dayRowsByKeyQuery(woven, "at", "2024-06-01", key, { min: "1", max: "39" }, true);
    expect(ordered.sql).toMatch(/ ORDER BY `id`$/);
    const [plan] = await explain(ordered);
    expect(plan).toMatchObject({ key: "PRIMARY" });
    expect(String(plan?.Extra)).not.toContain("filesort");
  });

  it("sorts a day of a table without an index on the filter column by key", async () => {
    await db.connection.query(
      "INSERT INTO plain VALUES (30, '2024-01-03 01:00:00'), (12, '2024-01-03 02:00:00'), (4, '2024-01-03 03:00:00')",
    );
    expect(await idsInKeyOrder("plain", "2024-01-03")).toEqual(["4", "12", "30"]);
    // A scan of InnoDB's clustered index happens to give key order: the statement must promise it.
    const plain = await describe_("plain");
    expect(dayRowsQuery(plain, "at", "2024-01-03", plain.columns[0]).sql).toMatch(/ ORDER BY `id`$/);
  });
});
