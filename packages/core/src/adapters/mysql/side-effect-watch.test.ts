import { describe, expect, it } from "vitest";
import { RefusalError } from "../../errors";
import type { ReferencingKey } from "../../ports/day-deleter";
import type { ServerFacts } from "./server-facts";
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

const mariadb: ServerFacts = {
  account: "'archiver'@'%'",
  database: "shop",
  mariadb: true,
  version: "10.11.19-MariaDB",
  lowerCaseNames: false,
};
const facts = async () => mariadb;

/**
 * A server answering the watch's one statement (referencing keys as child
 * table and id, trigger names, the account's TRIGGER grants) as rows of
 * [kind, name, id]; `denied` answers it as a server does to an account
 * without PROCESS. `keys` are [child table's dictionary name, key id].
 */
function server(
  keys: [string, string][],
  triggers: string[] = [],
  options: { grants?: number; denied?: boolean } = {},
) {
  const asked: { sql: string; values: unknown[] }[] = [];
  return {
    asked,
    async query(query: { sql: string }, values: unknown[]): Promise<[unknown, unknown]> {
      asked.push({ sql: query.sql, values });
      if (options.denied) {
        throw Object.assign(new Error("Access denied; you need the PROCESS privilege"), { errno: 1227 });
      }
      const rows = [
        ...keys.map(([child, id]) => ["k", child, id]),
        ...triggers.map((name) => ["t", name, ""]),
      ];
      return [[...rows, ["p", options.grants ?? 1, ""]], []];
    },
  };
}

describe("createSideEffectWatch", () => {
  it("reports nothing added when the keys and triggers are the ones the task knew, whatever the case of the id", async () => {
    const watch = createSideEffectWatch(facts).added;
    const added = await watch(server([["shop/payment", "shop/fk_payment_rental"]], ["audit"]), "rental", {
      referencingKeys: [payment],
      deleteTriggers: ["audit"],
    });
    expect(added).toEqual({ referencingKeys: [], deleteTriggers: [] });
  });

  it("names a key or a trigger that appeared, decoding the names as InnoDB spells them", async () => {
    const watch = createSideEffectWatch(facts).added;
    const added = await watch(
      server(
        [
          ["shop/payment", "shop/fk_payment_rental"],
          ["other@002ddb/line@002ditems", "other@002ddb/fk_new"],
          // MariaDB 12.1 on: the id is the constraint's name alone.
          ["shop/refunds", "fk_refund"],
        ],
        ["audit", "count"],
      ),
      "rental",
      { referencingKeys: [payment], deleteTriggers: ["audit"] },
    );
    expect(added.referencingKeys.map((key) => [key.childSchema, key.childTable, key.constraint])).toEqual([
      ["other-db", "line-items", "fk_new"],
      ["shop", "refunds", "fk_refund"],
    ]);
    expect(added.deleteTriggers).toEqual(["count"]);
  });

  it("asks InnoDB's dictionary for the keys of the table by its dictionary name, never information_schema's filtered views", async () => {
    const db = server([]);
    await createSideEffectWatch(facts).ids(db, "rental-2024");
    expect(db.asked).toHaveLength(1);
    expect(db.asked[0]?.sql).toMatch(
      /INNODB_SYS_FOREIGN f WHERE \(f\.REF_NAME = BINARY \? OR f\.REF_NAME = BINARY \?\)/,
    );
    expect(db.asked[0]?.sql).not.toMatch(/REFERENTIAL_CONSTRAINTS|KEY_COLUMN_USAGE/);
    // As InnoDB encodes it, and as written in case a server lists it so.
    expect(db.asked[0]?.values.slice(0, 2)).toEqual(["shop/rental@002d2024", "shop/rental-2024"]);
    const mysql = createSideEffectWatch(async () => ({ ...mariadb, mariadb: false, version: "8.0.36" }));
    await mysql.ids(db, "rental");
    expect(db.asked[1]?.sql).toMatch(/information_schema\.INNODB_FOREIGN f/);
  });

  it("refuses, naming PROCESS and its GRANT, when the account may not read the dictionary", async () => {
    const watch = createSideEffectWatch(facts).added;
    const denied = watch(server([], [], { denied: true }), "rental", {
      referencingKeys: [],
      deleteTriggers: [],
    });
    await expect(denied).rejects.toBeInstanceOf(RefusalError);
    await expect(denied).rejects.toMatchObject({ reason: "privilege" });
    await expect(denied).rejects.toThrow("GRANT PROCESS ON *.* TO 'archiver'@'%';");
  });

  it("refuses, naming TRIGGER on the table, when no grant of the account lets it see the table's triggers", async () => {
    const watch = createSideEffectWatch(facts).added;
    const blind = watch(server([], [], { grants: 0 }), "rental", { referencingKeys: [], deleteTriggers: [] });
    await expect(blind).rejects.toMatchObject({ reason: "privilege" });
    await expect(blind).rejects.toThrow("GRANT TRIGGER ON `shop`.`rental` TO 'archiver'@'%';");
  });

  it("tells whether known side effects are still exactly the table's", () => {
    const known = { referencingKeys: [payment], deleteTriggers: ["audit"] };
    const id = "shop/payment/fk_payment_rental";
    expect(describes(known, { keys: [id], triggers: ["audit"] })).toBe(true);
    expect(describes(known, { keys: [], triggers: ["audit"] })).toBe(false);
    expect(describes(known, { keys: [id], triggers: [] })).toBe(false);
    expect(describes(known, { keys: [id, "shop/payment/fk_other"], triggers: ["audit"] })).toBe(false);
  });
});
