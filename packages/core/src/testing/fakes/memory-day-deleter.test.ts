import { describe, expect, it } from "vitest";
import { describeDayDeleterContract } from "../day-deleter-contract";
import { createMemoryDayDeleter } from "./memory-day-deleter";
import { createMemorySource } from "./memory-source";
import { sourceColumn } from "./source-column";

describeDayDeleterContract("in memory", async () => {
  const source = createMemorySource();
  const deleter = createMemoryDayDeleter(source);
  const columnOf = (table: string, column: string) =>
    source.schemaOf(table).columns.findIndex((c) => c.name === column);
  return {
    deleter,
    source,
    async createTable({ schema, rows }) {
      source.createTable(schema, rows);
    },
    async deleteRows(table, column, value, limit) {
      const index = columnOf(table, column);
      let left = limit;
      source.deleteRows(table, (row) => String(row[index]) === value && left-- > 0);
    },
    async values(table, column) {
      const index = columnOf(table, column);
      return source.rows(table).map((row) => String(row[index]));
    },
    async addDeleteTrigger(table, name) {
      const effects = await deleter.sideEffects(table);
      deleter.setSideEffects(table, { ...effects, deleteTriggers: [...effects.deleteTriggers, name] });
    },
    async addReference(table, { constraint, childTable, referenced }) {
      const effects = await deleter.sideEffects(table);
      const key = {
        constraint,
        childSchema: "memory",
        childTable,
        childColumns: ["parent_id"],
        parentColumns: ["id"],
        onDelete: "RESTRICT",
        selfReferencing: false,
      };
      deleter.setSideEffects(table, { ...effects, referencingKeys: [...effects.referencingKeys, key] });
      deleter.setReferences(constraint, referenced);
    },
    async addSelfReference(table, constraint) {
      const effects = await deleter.sideEffects(table);
      const key = {
        constraint,
        childSchema: "memory",
        childTable: table,
        childColumns: ["parent_id"],
        parentColumns: ["id"],
        onDelete: "RESTRICT",
        selfReferencing: true,
      };
      deleter.setSideEffects(table, { ...effects, referencingKeys: [...effects.referencingKeys, key] });
    },
    cleanup: () => source.close(),
  };
});

describe("createMemoryDayDeleter", () => {
  it("reports the side effects a test set, replacing what it set before", async () => {
    const source = createMemorySource();
    source.createTable({
      name: "t",
      columns: [sourceColumn("id", "int(11)", false), sourceColumn("at", "datetime", false)],
      primaryKey: ["id"],
      indexLeadingColumns: ["id", "at"],
    });
    const deleter = createMemoryDayDeleter(source);
    deleter.setSideEffects("t", { referencingKeys: [], deleteTriggers: ["audit"] });
    deleter.setSideEffects("t", { referencingKeys: [], deleteTriggers: ["other"] });
    expect(await deleter.sideEffects("t")).toEqual({ referencingKeys: [], deleteTriggers: ["other"] });
    expect(await deleter.sideEffects("u")).toEqual({ referencingKeys: [], deleteTriggers: [] });
  });
});
