import { describe, expect, it } from "vitest";
import { InvalidInputError, RefusalError, TransientError } from "../../errors";
import { mapMysqlError } from "./map-mysql-error";

function driverError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(String(fields.message ?? "boom")), fields);
}

describe("mapMysqlError", () => {
  it.each([
    ["ECONNREFUSED", { code: "ECONNREFUSED", errno: -111, fatal: true }],
    ["ETIMEDOUT", { code: "ETIMEDOUT", fatal: true }],
    ["lost connection", { code: "PROTOCOL_CONNECTION_LOST", fatal: true }],
    ["too many connections", { code: "ER_CON_COUNT_ERROR", errno: 1040, sqlState: "08004" }],
    ["deadlock", { code: "ER_LOCK_DEADLOCK", errno: 1213, sqlState: "40001" }],
    ["lock wait timeout", { code: "ER_LOCK_WAIT_TIMEOUT", errno: 1205, sqlState: "HY000" }],
    ["server gone away by number", { errno: 2006 }],
    [
      "closed connection",
      { message: "Can't add new command when connection is in closed state", fatal: true },
    ],
  ])("treats %s as transient and keeps the cause", (_, fields) => {
    const cause = driverError(fields);
    const mapped = mapMysqlError(cause, { table: "orders" });
    expect(mapped).toBeInstanceOf(TransientError);
    expect((mapped as TransientError).cause).toBe(cause);
    expect((mapped as TransientError).message).toContain("orders");
  });

  it("names the table when it does not exist", () => {
    const mapped = mapMysqlError(
      driverError({
        code: "ER_NO_SUCH_TABLE",
        errno: 1146,
        sqlState: "42S02",
        message: "Table 'x' doesn't exist",
      }),
      { table: "x" },
    );
    expect(mapped).toBeInstanceOf(InvalidInputError);
    expect((mapped as InvalidInputError).field).toBe("table");
  });

  it.each([
    ["by code", { code: "ER_ROW_IS_REFERENCED_2", errno: 1451, sqlState: "23000" }],
    ["by number alone", { errno: 1217 }],
  ])("makes a delete a foreign key refused final, %s: a retry would be refused again", (_, fields) => {
    const mapped = mapMysqlError(
      driverError({ ...fields, message: "Cannot delete or update a parent row" }),
      {
        table: "rental",
      },
    );
    expect(mapped).toBeInstanceOf(RefusalError);
    expect(mapped).toMatchObject({ reason: "foreign-key" });
    expect((mapped as RefusalError).message).toMatch(/foreign key refused the delete \(table "rental"\)/);
  });

  it("names the column when it does not exist", () => {
    const mapped = mapMysqlError(
      driverError({ code: "ER_BAD_FIELD_ERROR", errno: 1054, sqlState: "42S22" }),
      { table: "t", column: "nope" },
    );
    expect(mapped).toBeInstanceOf(InvalidInputError);
    expect((mapped as InvalidInputError).field).toBe("column");
    expect((mapped as InvalidInputError).message).toContain("nope");
  });

  it("leaves other server errors and archiver errors alone", () => {
    const denied = driverError({
      code: "ER_ACCESS_DENIED_ERROR",
      errno: 1045,
      sqlState: "28000",
      fatal: true,
    });
    expect(mapMysqlError(denied)).toBe(denied);
    const syntax = driverError({ code: "ER_PARSE_ERROR", errno: 1064, sqlState: "42000" });
    expect(mapMysqlError(syntax)).toBe(syntax);
    const verification = new RefusalError("mismatch");
    expect(mapMysqlError(verification)).toBe(verification);
    expect(mapMysqlError("text")).toBe("text");
  });
});
