import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row, TableSchema } from "../../model/table-schema";
import type { SourceDatabase } from "../../ports/source-database";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool } from "./create-mysql-pool";
import { createMysqlSourceDatabase } from "./mysql-source-database";

// One row per case of the type-mapping table (design invariant 7), read back
// through streamDay and compared with the canonical value of its logical type.
const DAY = "2024-03-10";
const COLUMNS = `
  id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  created_at DATETIME(6) NOT NULL,
  dec_wide DECIMAL(65,30), dec_money DECIMAL(10,2),
  u64 BIGINT UNSIGNED, i64 BIGINT,
  i8 TINYINT, u32 INT UNSIGNED, i24 MEDIUMINT,
  f32 FLOAT, f64 DOUBLE,
  dt0 DATETIME, dt6 DATETIME(6), ts TIMESTAMP(6) NULL DEFAULT NULL, d DATE,
  t6 TIME(6), t0 TIME, y YEAR,
  j JSON,
  vb VARBINARY(16), bl BLOB, bn BINARY(4),
  b1 BIT(1), b64 BIT(64),
  e ENUM('small','large'), s SET('a','b','c'),
  txt TEXT, vc VARCHAR(32),
  g POINT, ip INET6,
  KEY (created_at)`;

let db: TestDatabase;
let source: SourceDatabase;
let schema: TableSchema;
let rows: Map<string, Record<string, unknown>>;
let zeroDates: number;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(`CREATE TABLE all_types (${COLUMNS}) ENGINE=InnoDB`);
  await db.connection.query(`
    SET time_zone = '+05:00';
    INSERT INTO all_types VALUES (
      1, '${DAY} 08:00:00',
      '12345678901234567890123456789012345.123456789012345678901234567891', -12345678.91,
      18446744073709551615, -9223372036854775808,
      -128, 4294967295, -8388608,
      1.5, 0.1,
      '1000-01-01 00:00:00', '9999-12-31 23:59:59.999999', '2024-01-01 05:00:00.123456', '2024-02-29',
      '-838:59:59.000000', '838:59:59', 2155,
      '{"a": [1, 2.50, "x"], "big": 18446744073709551615}',
      0x00FF00FF, 0x00FF, 0xFF,
      b'1', b'1111111111111111111111111111111111111111111111111111111111111111',
      'large', 'a,c',
      '😀 ñ 漢字', 'tab\there',
      ST_GeomFromText('POINT(1 2)'), '2001:db8::1'
    );
    INSERT INTO all_types (id, created_at, f32, f64, t6, b1, b64) VALUES
      (2, '${DAY} 09:00:00', 123456.789, 1.7976931348623157e308, '00:00:00.000001', b'0', b'0');
    INSERT INTO all_types (id, created_at) VALUES (3, '${DAY} 10:00:00');
    SET time_zone = '+00:00';
    SET SESSION sql_mode = '';
    INSERT INTO all_types (id, created_at, dt0, dt6, ts, d) VALUES
      (4, '${DAY} 11:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00.000000', '0000-00-00 00:00:00', '0000-00-00'),
      (5, '${DAY} 12:00:00', '2020-05-00 10:00:00', '2020-00-15 00:00:00', NULL, '2020-07-00');
    SET SESSION sql_mode = DEFAULT;`);
  source = createMysqlSourceDatabase(createMysqlPool({ url: db.url, password: undefined }));
  const described = await source.describeTable("all_types");
  if (!described) throw new Error("all_types was not found");
  schema = described;
  const stream = source.streamDay(schema, "created_at", DAY, 100);
  const read: Row[] = [];
  for await (const batch of stream.batches) read.push(...batch);
  zeroDates = stream.stats().zeroDates;
  const names = schema.columns.map((c) => c.name);
  rows = new Map(read.map((row) => [String(row[0]), Object.fromEntries(names.map((n, i) => [n, row[i]]))]));
});

afterAll(async () => {
  await source?.close();
  await db?.drop();
});

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, "hex"));
const plain = (value: unknown) => (value instanceof Uint8Array ? new Uint8Array(value) : value);

describe("canonical values read by streamDay", () => {
  it("reads every row of the day", () => {
    expect([...rows.keys()]).toEqual(["1", "2", "3", "4", "5"]);
  });

  it.each([
    ["dec_wide", "12345678901234567890123456789012345.123456789012345678901234567891"],
    ["dec_money", "-12345678.91"],
    ["u64", "18446744073709551615"],
    ["i64", "-9223372036854775808"],
    ["i8", -128],
    ["u32", 4294967295],
    ["i24", -8388608],
    ["f32", 1.5],
    ["f64", 0.1],
    ["dt0", "1000-01-01 00:00:00"],
    ["dt6", "9999-12-31 23:59:59.999999"],
    ["ts", "2024-01-01 00:00:00.123456"],
    ["d", "2024-02-29"],
    ["t6", "-838:59:59.000000"],
    ["t0", "838:59:59"],
    ["y", 2155],
    ["j", '{"a": [1, 2.50, "x"], "big": 18446744073709551615}'],
    ["vb", bytes("00ff00ff")],
    ["bl", bytes("00ff")],
    ["bn", bytes("ff000000")],
    ["b1", "1"],
    ["b64", "18446744073709551615"],
    ["e", "large"],
    ["s", "a,c"],
    ["txt", "😀 ñ 漢字"],
    ["vc", "tab\there"],
    ["g", bytes("0101000000000000000000f03f0000000000000040")],
    ["ip", "2001:db8::1"],
  ])("%s is read exactly", (column, expected) => {
    expect(plain(rows.get("1")?.[column])).toEqual(expected);
  });

  it("reads the smallest TIME fraction, the largest DOUBLE, a FLOAT's stored value and zero bits", () => {
    const row = rows.get("2");
    // The float32 nearest 123456.789, which MariaDB would print as "123457".
    expect(row?.f32).toBe(Math.fround(123456.789));
    expect(row?.t6).toBe("00:00:00.000001");
    expect(row?.f64).toBe(1.7976931348623157e308);
    expect(row?.b1).toBe("0");
    expect(row?.b64).toBe("0");
  });

  it("reads DATETIME(6) filter values with microseconds", () => {
    expect(rows.get("1")?.created_at).toBe(`${DAY} 08:00:00.000000`);
  });

  it("reads NULL as null in every nullable column", () => {
    const row = rows.get("3") ?? {};
    const nullable = schema.columns.filter((c) => c.nullable).map((c) => c.name);
    expect(nullable.length).toBe(schema.columns.length - 2);
    for (const name of nullable) expect(row[name], name).toBeNull();
  });

  it("turns zero and partial zero dates into null and counts them", () => {
    for (const id of ["4", "5"]) {
      const row = rows.get(id);
      expect([row?.dt0, row?.dt6, row?.ts, row?.d], `row ${id}`).toEqual([null, null, null, null]);
    }
    expect(zeroDates).toBe(7);
  });

  it("gives bytes as Uint8Array and text as strings", () => {
    const row = rows.get("1") ?? {};
    for (const name of ["vb", "bl", "bn", "g"]) expect(row[name], name).toBeInstanceOf(Uint8Array);
    for (const name of ["dec_wide", "u64", "i64", "j", "txt", "b64", "ip"]) {
      expect(typeof row[name], name).toBe("string");
    }
  });
});
