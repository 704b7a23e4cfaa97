import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarDay } from "../../../model/calendar-day";
import {
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  refusal,
} from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  await fx?.close();
});

describe("the content fingerprint over every column type", () => {
  async function allTypesTable(day: CalendarDay, rows: number): Promise<string> {
    const table = uniqueName("types");
    await fx.query(
      `CREATE TABLE \`${table}\` (
         id BIGINT NOT NULL PRIMARY KEY,
         created_at DATETIME(6) NOT NULL,
         i INT NULL, u BIGINT UNSIGNED NULL, d DECIMAL(30,10) NULL, f FLOAT NULL, g DOUBLE NULL,
         b BIT(5) NULL, dt DATE NULL, t TIME(3) NULL, ts TIMESTAMP(6) NULL, y YEAR NULL,
         c CHAR(4) NULL, v VARCHAR(32) NULL, tx TEXT NULL, bl BLOB NULL, vb VARBINARY(8) NULL,
         j JSON NULL, e ENUM('x','y') NULL, s SET('p','q') NULL, bo BOOLEAN NULL,
         ip INET6 NULL, uu UUID NULL, pt POINT NULL,
         KEY (created_at)
       ) ENGINE=InnoDB`,
    );
    for (let n = 1; n <= rows; n++) {
      const empty = n % 5 === 0;
      await fx.query(
        `INSERT INTO \`${table}\` VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${empty ? "NULL" : "POINT(?, ?)"})`,
        [
          -n * 1_000_000_000_007,
          `${day} ${String(n % 24).padStart(2, "0")}:00:00.${String(n).padStart(6, "0")}`,
          empty ? null : -n,
          empty ? null : "18446744073709551615",
          empty ? null : `-12345678901234567890.${String(n).padStart(10, "0")}`,
          empty ? null : 123456.789 + n,
          empty ? null : Math.PI * n,
          empty ? null : n % 32,
          empty ? null : "1999-12-31",
          empty ? null : "-838:59:59.999",
          empty ? null : "2038-01-19 03:14:07.999999",
          empty ? null : 2155,
          empty ? null : "ab",
          empty ? "" : `héllo 🎉 ${n}`,
          empty ? null : "x".repeat(n * 10),
          empty ? null : Buffer.from([0, 255, n % 256, 10, 13]),
          empty ? null : Buffer.from([n % 256, 0]),
          empty ? null : JSON.stringify({ n, s: "é" }),
          empty ? null : "y",
          empty ? null : "p,q",
          empty ? null : n % 2,
          empty ? null : "2001:db8::1",
          empty ? null : "123e4567-e89b-12d3-a456-426614174000",
          ...(empty ? [] : [n, -n]),
        ],
      );
    }
    return table;
  }

  it("a day holding every column type (NULLs, bytes, emoji, extremes) copies and cleans: the fingerprints agree", async () => {
    const table = await allTypesTable("2024-07-26", 30);
    await fx.copy(table, "2024-07-26");

    const report = await cleanDay(fx.deps({ settings: { chunkRows: 7 } }), cleanTask(table, "2024-07-26"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 30, chunks: 5 });
    expect(await fx.query(`SELECT * FROM \`${table}\``)).toEqual([]);
  });

  it.each([
    ["one byte of a BLOB", "bl = CONCAT(LEFT(bl, 4), 0x0b)"],
    ["a FLOAT's last bit", "f = f * (1 + 1e-7)"],
    ["a DOUBLE's last bit", "g = g + g * 2.3e-16"],
    ["a JSON value", `j = '{"n": 3, "s": "e"}'`],
    ["a TIMESTAMP's microsecond", "ts = '2038-01-19 03:14:07.999998'"],
    ["a BIT", "b = b ^ 1"],
    ["an INET6", "ip = '2001:db8::2'"],
    ["a POINT", "pt = POINT(3, -4)"],
  ])("%s changed after the copy refuses the day", async (_, set) => {
    const table = await allTypesTable("2024-07-27", 4);
    await fx.copy(table, "2024-07-27");
    const changed = await fx.query<{ affectedRows?: number }>(`UPDATE \`${table}\` SET ${set} WHERE id = ?`, [
      -3 * 1_000_000_000_007,
    ]);
    expect(changed).toMatchObject({ affectedRows: 1, changedRows: 1 });
    const before = await fx.query(`SELECT * FROM \`${table}\` ORDER BY id`);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-27")));

    expect(error.reason).toBe("changed");
    expect(await fx.query(`SELECT * FROM \`${table}\` ORDER BY id`)).toEqual(before);
  });

  it("a keyless DATETIME(6) table is chunked by microsecond instants; neighbours one microsecond outside stay", async () => {
    const table = uniqueName("ticks");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME(6) NOT NULL, n INT NOT NULL) ENGINE=InnoDB`,
    );
    await fx.query(
      `INSERT INTO \`${table}\` VALUES
         ('2024-07-27 23:59:59.999999', 0),
         ('2024-07-28 00:00:00.000000', 1), ('2024-07-28 00:00:00.000001', 2), ('2024-07-28 00:00:00.000001', 3),
         ('2024-07-28 12:00:00.500000', 4), ('2024-07-28 23:59:59.999999', 5),
         ('2024-07-29 00:00:00.000000', 6)`,
    );
    await fx.copy(table, "2024-07-28");

    const report = await cleanDay(fx.deps({ settings: { chunkRows: 1 } }), cleanTask(table, "2024-07-28"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 5, chunks: 4 });
    expect(await fx.query(`SELECT * FROM \`${table}\` ORDER BY n`)).toEqual([
      { created_at: "2024-07-27 23:59:59.999999", n: 0 },
      { created_at: "2024-07-29 00:00:00.000000", n: 6 },
    ]);
  });
});
