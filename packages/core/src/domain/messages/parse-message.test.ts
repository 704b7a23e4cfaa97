import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import { parseMessage } from "./parse-message";

const migration = {
  years_to_migrate: 1,
  months_to_migrate: 0,
  source_tables: ["orders"],
  destination_tables: ["orders_archive"],
  filter_columns: ["created_at"],
};

function rejection(input: unknown): InvalidInputError {
  try {
    parseMessage(input);
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe("parseMessage: migration mode", () => {
  it("accepts a minimal message and applies the default limit", () => {
    expect(parseMessage(migration)).toEqual({
      mode: "migration",
      message: { ...migration, tasks_enqueued_limit: 20 },
    });
  });

  it("keeps optional fields", () => {
    const parsed = parseMessage({
      ...migration,
      tasks_enqueued_limit: 365,
      min_date_limit_iso: "2024-02-29T23:59:59",
    });
    expect(parsed.message).toMatchObject({
      tasks_enqueued_limit: 365,
      min_date_limit_iso: "2024-02-29T23:59:59",
    });
  });

  it.each([
    ["an unknown field", { ...migration, dry_run: false }, "dry_run"],
    ["a typo of a field", { ...migration, task_enqueued_limit: 5 }, "task_enqueued_limit"],
    ["a missing field", { ...migration, filter_columns: undefined }, "filter_columns"],
    ["years as a string", { ...migration, years_to_migrate: "1" }, "years_to_migrate"],
    ["years not an integer", { ...migration, years_to_migrate: 1.5 }, "years_to_migrate"],
    ["negative years", { ...migration, years_to_migrate: -1 }, "years_to_migrate"],
    ["negative months", { ...migration, months_to_migrate: -3 }, "months_to_migrate"],
    ["months null", { ...migration, months_to_migrate: null }, "months_to_migrate"],
    ["tables not a list", { ...migration, source_tables: "orders" }, "source_tables"],
    [
      "an empty list",
      { ...migration, source_tables: [], destination_tables: [], filter_columns: [] },
      "source_tables",
    ],
    ["a non-string entry", { ...migration, filter_columns: [7] }, "filter_columns[0]"],
    ["an empty name", { ...migration, destination_tables: [""] }, "destination_tables[0]"],
    [
      "more destinations than sources",
      { ...migration, destination_tables: ["a", "b"] },
      "destination_tables",
    ],
    [
      "fewer filter columns than sources",
      { ...migration, source_tables: ["a", "b"], destination_tables: ["a", "b"] },
      "filter_columns",
    ],
    [
      "the same table twice",
      { ...migration, source_tables: ["a", "a"], destination_tables: ["x", "y"], filter_columns: ["c", "c"] },
      "source_tables[1]",
    ],
    ["a limit of 0", { ...migration, tasks_enqueued_limit: 0 }, "tasks_enqueued_limit"],
    ["a limit over 10000", { ...migration, tasks_enqueued_limit: 10_001 }, "tasks_enqueued_limit"],
    ["a fractional limit", { ...migration, tasks_enqueued_limit: 2.5 }, "tasks_enqueued_limit"],
    ["a date without time", { ...migration, min_date_limit_iso: "2024-01-01" }, "min_date_limit_iso"],
    [
      "a date with a zone",
      { ...migration, min_date_limit_iso: "2024-01-01T00:00:00Z" },
      "min_date_limit_iso",
    ],
    ["an unreal day", { ...migration, min_date_limit_iso: "2023-02-29T00:00:00" }, "min_date_limit_iso"],
    ["an unreal hour", { ...migration, min_date_limit_iso: "2023-02-28T24:00:00" }, "min_date_limit_iso"],
    ["a number as date", { ...migration, min_date_limit_iso: 20240101 }, "min_date_limit_iso"],
  ])("rejects %s, naming the field", (_case, input, field) => {
    const error = rejection(input);
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
    expect(error.code).toBe("INVALID_INPUT");
  });
});

describe("parseMessage: cleanup mode", () => {
  it("defaults dry_run to true, both safety flags to false and exchange_partitions to true", () => {
    expect(parseMessage({ clean_table: "orders", filter_column: "created_at" })).toEqual({
      mode: "cleanup",
      message: {
        clean_table: "orders",
        filter_column: "created_at",
        dry_run: true,
        recopy_changed_days: false,
        allow_delete_triggers: false,
        exchange_partitions: true,
      },
    });
  });

  it.each(["recopy_changed_days", "allow_delete_triggers", "exchange_partitions"])(
    "takes %s only as a JSON boolean, naming the field",
    (flag) => {
      expect(parseMessage({ clean_table: "t", filter_column: "c", [flag]: true }).message).toMatchObject({
        [flag]: true,
      });
      expect(parseMessage({ clean_table: "t", filter_column: "c", [flag]: false }).message).toMatchObject({
        [flag]: false,
      });
      for (const bad of ["true", 1, null]) {
        const error = rejection({ clean_table: "t", filter_column: "c", [flag]: bad });
        expect(error.field).toBe(flag);
        expect(error.message).toMatch(/must be a JSON boolean/);
      }
    },
  );

  it.each([
    [1, "must be a JSON boolean (true or false), not a number"],
    ["false", 'must be a JSON boolean (true or false), not the string "false"'],
    [null, "must be a JSON boolean (true or false), not null"],
    [{}, "must be a JSON boolean (true or false), not an object"],
  ])("says what a flag was given instead of a boolean: %j", (bad, words) => {
    const error = rejection({ clean_table: "t", filter_column: "c", allow_delete_triggers: bad });
    expect(error.message).toContain(words);
    expect(error.message).not.toMatch(/string/.test(words) ? /number/ : /string/);
  });

  it("takes dry_run false only as a JSON boolean", () => {
    expect(parseMessage({ clean_table: "t", filter_column: "c", dry_run: false }).message).toMatchObject({
      dry_run: false,
    });
    expect(rejection({ clean_table: "t", filter_column: "c", dry_run: "false" }).field).toBe("dry_run");
    expect(rejection({ clean_table: "t", filter_column: "c", dry_run: 0 }).field).toBe("dry_run");
  });

  it.each([
    ["a missing column", { clean_table: "t" }, "filter_column"],
    ["a missing table", { filter_column: "c" }, "clean_table"],
    ["an unknown field", { clean_table: "t", filter_column: "c", force: true }, "force"],
    ["a non-string table", { clean_table: ["t"], filter_column: "c" }, "clean_table"],
  ])("rejects %s", (_case, input, field) => {
    expect(rejection(input).field).toBe(field);
  });
});

describe("parseMessage: shape", () => {
  it.each([
    ["an array", []],
    ["a string", "orders"],
    ["null", null],
    ["an empty object", {}],
    ["fields of neither shape", { table: "orders" }],
  ])("rejects %s as message", (_case, input) => {
    expect(rejection(input).field).toBe("message");
  });

  it("rejects a message with fields of both shapes", () => {
    const error = rejection({ ...migration, clean_table: "orders", filter_column: "created_at" });
    expect(error.field).toBe("message");
    expect(error.message).toMatch(/both/);
  });
});
