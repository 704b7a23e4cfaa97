import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import { taskKey } from "../../model/task";
import { parseTaskPayload } from "./task-payload";

const copy = {
  kind: "copy",
  table: "orders",
  destination: "archive.orders",
  filterColumn: "created_at",
  day: "2024-02-29",
};
const clean = { kind: "clean", table: "orders", filterColumn: "created_at", day: "2024-02-29" };

describe("parseTaskPayload", () => {
  it.each([
    ["copy", copy],
    ["clean", clean],
    ["partition's clean", { ...clean, partition: "p2024_02" }],
  ])("accepts a %s task as it is", (_, body) => {
    expect(parseTaskPayload(body)).toEqual(body);
  });

  it.each([
    ["not an object", "copy 2024-02-29", "task"],
    ["an unknown kind", { ...copy, kind: "move" }, "kind"],
    ["an unknown field", { ...copy, priority: 1 }, "priority"],
    ["a destination on a clean task", { ...clean, destination: "archive.orders" }, "destination"],
    ["a missing day", { ...copy, day: undefined }, "day"],
    ["a day that does not exist", { ...copy, day: "2023-02-29" }, "day"],
    ["a day with a time", { ...copy, day: "2024-02-29T00:00:00" }, "day"],
    ["a table name with a quote", { ...copy, table: "orders`; DROP TABLE x" }, "table"],
    ["a filter column that is not text", { ...clean, filterColumn: 7 }, "filterColumn"],
    ["an empty destination", { ...copy, destination: "" }, "destination"],
    ["a partition name with a quote", { ...clean, partition: "p1`; DROP TABLE x" }, "partition"],
    ["a partition on a copy task", { ...copy, partition: "p1" }, "partition"],
  ])("refuses %s, naming the field", (_, body, field) => {
    const parse = () => parseTaskPayload(body);
    expect(parse).toThrow(InvalidInputError);
    expect(parse).toThrow(new RegExp(`^${field}: `));
  });
});

describe("taskKey", () => {
  it("is the same for a copy and its retry, and differs by kind, table and day", () => {
    expect(taskKey(copy as never)).toBe("copy:orders:2024-02-29");
    expect(taskKey({ ...copy, kind: "clean" } as never)).toBe("clean:orders:2024-02-29");
  });
});
