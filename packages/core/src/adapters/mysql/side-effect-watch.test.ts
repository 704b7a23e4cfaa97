import { describe, expect, it } from "vitest";
import type { ReferencingKey } from "../../ports/day-deleter";
import { createSideEffectWatch, describes } from "./side-effect-watch";

const payment: ReferencingKey = {
  constraint: "fk_payment_rental",
  childSchema: "Shop",
  childTable: "payment",
  childColumns: ["rental_id"],
  parentColumns: ["id"],
  onDelete: "CASCADE",
  selfReferencing: false,
};

/**
 * A server that lacks the first `missing` foreign-key sources and lists `ids` and `triggers` in the rest,
 * answering the watch's one statement (keys UNION ALL triggers) as rows of [kind, id].
 */
function server(missing: number, ids: string[], triggers: string[] = []) {
  const asked: string[] = [];
  let failures = 0;
  return {
    asked,
    async query(options: { sql: string }): Promise<[unknown, unknown]> {
      asked.push(options.sql);
      if (failures < missing) {
        failures += 1;
        throw Object.assign(new Error("Access denied; you need the PROCESS privilege"), { errno: 1227 });
      }
      return [[...ids.map((id) => ["k", id]), ...triggers.map((name) => ["t", name])], []];
    },
  };
}

describe("createSideEffectWatch", () => {
  it("reports nothing added when the keys and triggers are the ones the task knew, whatever the case of the id", async () => {
    const watch = createSideEffectWatch().added;
    const added = await watch(server(0, ["shop/fk_payment_rental"], ["audit"]), "rental", {
      referencingKeys: [payment],
      deleteTriggers: ["audit"],
    });
    expect(added).toEqual({ referencingKeys: [], deleteTriggers: [] });
  });

  it("names a key or a trigger that appeared", async () => {
    const watch = createSideEffectWatch().added;
    const added = await watch(
      server(0, ["shop/fk_payment_rental", "shop/fk_new"], ["audit", "count"]),
      "rental",
      {
        referencingKeys: [payment],
        deleteTriggers: ["audit"],
      },
    );
    expect(added.referencingKeys.map((key) => key.constraint)).toEqual(["fk_new"]);
    expect(added.deleteTriggers).toEqual(["count"]);
  });

  it("falls back to information_schema when the InnoDB dictionary is missing or denied, and remembers it", async () => {
    const watch = createSideEffectWatch().added;
    const db = server(2, ["shop/fk_new"]);
    const known = { referencingKeys: [], deleteTriggers: [] };
    expect((await watch(db, "rental", known)).referencingKeys).toHaveLength(1);
    // One statement per ask: the keys' source, then the triggers.
    expect(db.asked.every((sql) => /UNION ALL SELECT 't', TRIGGER_NAME/.test(sql))).toBe(true);
    const keyQueries = () => db.asked;
    expect(keyQueries()).toHaveLength(3);
    expect(keyQueries()[2]).toMatch(/REFERENTIAL_CONSTRAINTS/);
    await watch(db, "rental", known);
    expect(keyQueries()).toHaveLength(4);
    expect(keyQueries()[3]).toMatch(/REFERENTIAL_CONSTRAINTS/);
  });

  it("tells whether known side effects are still exactly the table's", () => {
    const known = { referencingKeys: [payment], deleteTriggers: ["audit"] };
    expect(describes(known, { keys: ["shop/fk_payment_rental"], triggers: ["audit"] })).toBe(true);
    expect(describes(known, { keys: [], triggers: ["audit"] })).toBe(false);
    expect(describes(known, { keys: ["shop/fk_payment_rental"], triggers: [] })).toBe(false);
    expect(describes(known, { keys: ["shop/fk_payment_rental", "shop/fk_other"], triggers: ["audit"] })).toBe(
      false,
    );
  });

  it("gives up with the last source's error when none answers", async () => {
    const watch = createSideEffectWatch().added;
    await expect(watch(server(3, []), "rental", { referencingKeys: [], deleteTriggers: [] })).rejects.toThrow(
      /PROCESS privilege/,
    );
  });
});
