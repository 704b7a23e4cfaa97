import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidInputError } from "../../errors";
import { parseMessage } from "../messages/parse-message";
import { parseTaskPayload } from "../tasks/task-payload";
import { closest, editDistance, parseWith } from "./parse-with";

function rejection(parse: () => unknown): InvalidInputError {
  try {
    parse();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error("accepted");
}

const migration = {
  years_to_migrate: 1,
  months_to_migrate: 0,
  destination_tables: ["orders_archive"],
  filter_columns: ["created_at"],
};

describe("parseWith: an unknown field", () => {
  it("is named, with the known field it misspells, before the missing field it stands for", () => {
    const error = rejection(() => parseMessage({ ...migration, source_table: ["orders"] }));
    expect(error.message).toBe('source_table: unknown field; did you mean "source_tables"?');
    expect(error.field).toBe("source_table");
    expect(error.code).toBe("INVALID_INPUT");
  });

  it.each([
    ["a missing letter", { clean_table: "t", filter_colum: "c" }, "filter_colum", "filter_column"],
    ["swapped letters", { clean_table: "t", filter_column: "c", dyr_run: false }, "dyr_run", "dry_run"],
    [
      "camel case",
      { ...migration, source_tables: ["t"], tasksEnqueuedLimit: 5 },
      "tasksEnqueuedLimit",
      "tasks_enqueued_limit",
    ],
    ["another case", { CLEAN_TABLE: "t", filter_column: "c" }, "CLEAN_TABLE", "clean_table"],
  ])("suggests the closest known field for %s", (_case, input, field, suggested) => {
    const error = rejection(() => parseMessage(input));
    expect(error.field).toBe(field);
    expect(error.message).toBe(`${field}: unknown field; did you mean "${suggested}"?`);
  });

  it("lists the known fields when none is close", () => {
    const error = rejection(() => parseMessage({ clean_table: "t", filter_column: "c", force: true }));
    expect(error.field).toBe("force");
    expect(error.message).toBe(
      "force: unknown field (known fields: clean_table, filter_column, dry_run, recopy_changed_days, allow_delete_triggers, " +
        "exchange_partitions, policy, max_rows_per_second, time_zone, cleanup_window, window_end, min_retention_days)",
    );
  });

  it("does not suggest a field the input already has", () => {
    const error = rejection(() => parseMessage({ ...migration, source_tables: ["t"], source_table: ["t"] }));
    expect(error.message).not.toContain("did you mean");
  });

  it("finds the fields of every shape a union allows", () => {
    const error = rejection(() =>
      parseTaskPayload({ kind: "copy", tabel: "t", destination: "d", filterColumn: "c", day: "2024-01-01" }),
    );
    expect(error.message).toBe('tabel: unknown field; did you mean "table"?');
  });

  it("names a nested unknown field by its path", () => {
    const schema = z.strictObject({ items: z.array(z.strictObject({ name: z.string() })) });
    const error = rejection(() => parseWith(schema, { items: [{ name: "a" }, { nmae: "b" }] }, "body"));
    expect(error.field).toBe("items[1].nmae");
    expect(error.message).toBe('items[1].nmae: unknown field; did you mean "name"?');
  });

  it("leaves other problems as they were", () => {
    const error = rejection(() => parseMessage({ ...migration }));
    expect(error.field).toBe("source_tables");
    expect(error.message).toBe("source_tables: is required");
  });
});

describe("parseWith: a huge unknown field", () => {
  // A 3 MB key once took an edit distance against every known field: a minute and gigabytes before the answer.
  const huge = `x${"k".repeat(3_000_000)}`;

  it("is refused without a suggestion, its name cut to 64 characters", () => {
    const started = performance.now();
    const error = rejection(() => parseMessage({ clean_table: "t", filter_column: "c", [huge]: 1 }));
    // A generous bound: the refusal no longer depends on the key's length.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error.message).not.toContain("did you mean");
    expect(error.field).toBe(`${huge.slice(0, 64)}…`);
    expect(error.message.startsWith(`${huge.slice(0, 64)}…: unknown field (known fields: clean_table,`)).toBe(
      true,
    );
    expect(error.message.length).toBeLessThan(400);
  });

  it("still suggests for a key a few letters longer than a known field", () => {
    expect(closest("source_tabless_", ["source_tables"])).toBe("source_tables");
    expect(closest(huge, ["source_tables"])).toBeUndefined();
  });

  it("cuts a schema's message that echoes a long value", () => {
    const schema = z.strictObject({ flag: z.boolean({ error: (issue) => `not ${String(issue.input)}` }) });
    const error = rejection(() => parseWith(schema, { flag: "y".repeat(100_000) }, "body"));
    expect(error.field).toBe("flag");
    expect(error.message.length).toBeLessThan(400);
  });
});

describe("closest", () => {
  it("allows about one slip in three letters", () => {
    expect(closest("day", ["dya", "table"])).toBe("dya");
    expect(closest("id", ["kind"])).toBeUndefined();
    expect(closest("extra", ["years_to_migrate", "source_tables"])).toBeUndefined();
  });

  it("prefers the nearest", () => {
    expect(closest("source_tabel", ["source_tables", "source_table"])).toBe("source_table");
  });
});

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
    ["dry_run", "dyr_run", 1],
    ["source_table", "source_tables", 1],
  ])("%s to %s is %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});
