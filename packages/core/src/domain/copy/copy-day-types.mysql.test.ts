import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db, deps, fixture, readBack, task } from "../../testing/copy-day-fixture";
import { uniqueName } from "../../testing/test-services";
import { copyDay } from "./copy-day";

// Every MySQL type copied to the warehouse and read back exactly; the rest of copyDay: copy-day.mysql.test.ts.

beforeAll(fixture.createDatabase);
afterAll(fixture.dropDatabase);
beforeEach(fixture.startRuntime); // and closes it after each test

describe("copyDay", () => {
  it("round-trips every type of invariant 7 exactly", async () => {
    const table = uniqueName("types");
    await db.connection.query(`CREATE TABLE ${table} (
      id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      created_at DATETIME(6) NOT NULL,
      d_small DECIMAL(10,2), d_big DECIMAL(65,30), u64 BIGINT UNSIGNED, i64 BIGINT,
      dt6 DATETIME(6), d DATE, j JSON, vb VARBINARY(16), bl BLOB, tm TIME(6), b1 BIT(1), b64 BIT(64),
      e ENUM('small','large'), s SET('a','b','c'), y YEAR, txt VARCHAR(100) CHARACTER SET utf8mb4, f FLOAT, dbl DOUBLE,
      KEY (created_at))`);
    await db.connection.query(
      `INSERT INTO ${table} VALUES
       (1, '2024-03-10 00:00:00.000000', 12345678.90, '12345678901234567890123456789012345.123456789012345678901234567890',
        18446744073709551615, -9223372036854775808, '2024-03-10 23:59:59.999999', '2024-02-29', '{"a": [1, 2.5, "x"], "b": null}',
        0x00FF10, 0x000102FEFF, '-838:59:59.000000', b'1', b'1111111111111111111111111111111111111111111111111111111111111111',
        'large', 'a,c', 2155, 'naïve café 🎉 日本', 3.25, 0.1),
       (2, '2024-03-10 23:59:59.999999', -0.01, '-0.000000000000000000000000000001', 0, 9223372036854775807,
        '0000-00-00 00:00:00', '0000-00-00', '[]', '', '', '838:59:59.000000', b'0', b'0', 'small', '', 1901, '', -1.5, 1e308),
       (3, '2024-03-10 12:00:00.000001', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       (4, '2024-03-09 23:59:59.999999', 1, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'prev day', NULL, NULL),
       (5, '2024-03-11 00:00:00.000000', 1, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'next day', NULL, NULL)`,
    );
    const record = await copyDay(deps(), task(table, "2024-03-10"));
    expect(record.figures).toMatchObject({ rows: 3, key: { count: 3, sum: "6", min: "1", max: "3" } });
    expect(record.zeroDates).toBe(2);

    const { rows } = await readBack(table, "2024-03-10");
    expect(rows).toEqual([
      [
        "1",
        "2024-03-10 00:00:00.000000",
        "12345678.90",
        "12345678901234567890123456789012345.123456789012345678901234567890",
        "18446744073709551615",
        "-9223372036854775808",
        "2024-03-10 23:59:59.999999",
        "2024-02-29",
        expect.stringMatching(/^\{"a": ?\[1, ?2\.5, ?"x"\], ?"b": ?null\}$/),
        Uint8Array.from([0x00, 0xff, 0x10]),
        Uint8Array.from([0x00, 0x01, 0x02, 0xfe, 0xff]),
        "-838:59:59.000000",
        "1",
        "18446744073709551615",
        "large",
        "a,c",
        2155,
        "naïve café 🎉 日本",
        3.25,
        0.1,
      ],
      [
        "2",
        "2024-03-10 23:59:59.999999",
        "-0.01",
        "-0.000000000000000000000000000001",
        "0",
        "9223372036854775807",
        null,
        null,
        "[]",
        new Uint8Array(0),
        new Uint8Array(0),
        "838:59:59.000000",
        "0",
        "0",
        "small",
        "",
        1901,
        "",
        -1.5,
        1e308,
      ],
      ["3", "2024-03-10 12:00:00.000001", ...Array(18).fill(null)],
    ]);
  });
});
