import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LogicalType } from "../../model/logical-type";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { introspectTable } from "./introspect-table";

let db: TestDatabase;
let pool: MysqlPool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 2 });
  await db.connection.query(`
    CREATE TABLE typed (
      c_tinyint TINYINT, c_utinyint TINYINT UNSIGNED, c_smallint SMALLINT, c_mediumint MEDIUMINT,
      c_int INT, c_uint INT UNSIGNED, c_bigint BIGINT, c_ubigint BIGINT UNSIGNED,
      c_decimal DECIMAL(65,30), c_numeric NUMERIC(10,2), c_float FLOAT, c_double DOUBLE,
      c_datetime DATETIME, c_datetime6 DATETIME(6), c_timestamp TIMESTAMP(3) NULL, c_date DATE,
      c_time TIME(6), c_year YEAR,
      c_char CHAR(3), c_varchar VARCHAR(10) NOT NULL, c_text TEXT, c_longtext LONGTEXT,
      c_enum ENUM('a','b'), c_set SET('x','y'),
      c_json JSON,
      c_binary BINARY(2), c_varbinary VARBINARY(2), c_blob BLOB, c_longblob LONGBLOB,
      c_bit1 BIT(1), c_bit64 BIT(64),
      c_geometry GEOMETRY, c_point POINT, c_polygon POLYGON,
      c_inet6 INET6, c_uuid UUID
    );
    CREATE TABLE keyed (
      tenant INT NOT NULL, seq BIGINT UNSIGNED NOT NULL, created_at DATETIME NOT NULL,
      note VARCHAR(20), body TEXT, shape POINT NOT NULL,
      PRIMARY KEY (seq, tenant),
      KEY by_created (created_at, tenant),
      KEY by_note_created (note, created_at),
      FULLTEXT KEY body_text (body),
      SPATIAL KEY by_shape (shape)
    );
    CREATE TABLE no_key (a INT, b DATETIME);
    CREATE VIEW a_view AS SELECT a FROM no_key;`);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe("introspectTable", () => {
  it("maps every supported type to its logical type, in column order", async () => {
    const schema = await introspectTable(pool, "typed");
    const types = Object.fromEntries(schema?.columns.map((c) => [c.name, c.logicalType]) ?? []);
    const expected: Record<string, LogicalType> = {
      c_tinyint: { kind: "int32", unsigned: false, bits: 8 },
      c_utinyint: { kind: "int32", unsigned: true, bits: 8 },
      c_smallint: { kind: "int32", unsigned: false, bits: 16 },
      c_mediumint: { kind: "int32", unsigned: false, bits: 24 },
      c_int: { kind: "int32", unsigned: false, bits: 32 },
      c_uint: { kind: "int32", unsigned: true, bits: 32 },
      c_bigint: { kind: "int64" },
      c_ubigint: { kind: "uint64" },
      c_decimal: { kind: "decimal", precision: 65, scale: 30 },
      c_numeric: { kind: "decimal", precision: 10, scale: 2 },
      c_float: { kind: "float32" },
      c_double: { kind: "float64" },
      c_datetime: { kind: "datetime", fractionDigits: 0, zone: "local" },
      c_datetime6: { kind: "datetime", fractionDigits: 6, zone: "local" },
      c_timestamp: { kind: "datetime", fractionDigits: 3, zone: "utc" },
      c_date: { kind: "date" },
      c_time: { kind: "time", fractionDigits: 6 },
      c_year: { kind: "year" },
      c_char: { kind: "string" },
      c_varchar: { kind: "string" },
      c_text: { kind: "string" },
      c_longtext: { kind: "string" },
      c_enum: { kind: "string" },
      c_set: { kind: "string" },
      // MariaDB's JSON is LONGTEXT with a json_valid check.
      c_json: { kind: "string" },
      c_binary: { kind: "bytes" },
      c_varbinary: { kind: "bytes" },
      c_blob: { kind: "bytes" },
      c_longblob: { kind: "bytes" },
      c_bit1: { kind: "bit", width: 1 },
      c_bit64: { kind: "bit", width: 64 },
      c_geometry: { kind: "geometry" },
      c_point: { kind: "geometry" },
      c_polygon: { kind: "geometry" },
      c_inet6: { kind: "string" },
      c_uuid: { kind: "string" },
    };
    expect(Object.keys(types)).toEqual(Object.keys(expected));
    expect(types).toEqual(expected);
  });

  it("keeps the information_schema facts of each column", async () => {
    const schema = await introspectTable(pool, "typed");
    const varchar = schema?.columns.find((c) => c.name === "c_varchar");
    const ubigint = schema?.columns.find((c) => c.name === "c_ubigint");
    expect(varchar).toMatchObject({ dataType: "varchar", columnType: "varchar(10)", nullable: false });
    expect(ubigint).toMatchObject({ dataType: "bigint", columnType: "bigint(20) unsigned", nullable: true });
    expect(schema?.primaryKey).toEqual([]);
    expect(schema?.indexLeadingColumns).toEqual([]);
  });

  it("gives the primary key in key order and the columns that lead a range index", async () => {
    const schema = await introspectTable(pool, "keyed");
    expect(schema?.name).toBe("keyed");
    expect(schema?.primaryKey).toEqual(["seq", "tenant"]);
    // Fulltext and spatial indexes cannot serve a range scan; second columns lead nothing.
    expect([...(schema?.indexLeadingColumns ?? [])].sort()).toEqual(["created_at", "note", "seq"]);
  });

  it("finds no table where there is none, nor a view", async () => {
    expect(await introspectTable(pool, "missing_table")).toBeUndefined();
    expect(await introspectTable(pool, "a_view")).toBeUndefined();
    expect(await introspectTable(pool, "no_key")).toMatchObject({ primaryKey: [], indexLeadingColumns: [] });
  });
});
