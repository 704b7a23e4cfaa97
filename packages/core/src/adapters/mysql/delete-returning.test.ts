import { describe, expect, it } from "vitest";
import type { ChunkTarget } from "../../model/day-chunks";
import { itemsReferencingOrders, ordersSchema } from "../../testing/orders-fixture";
import { deletesReturning, fitsOneStatement, RETURNING_MAX_ROWS } from "./delete-returning";
import type { ServerFacts } from "./server-facts";

const keyed: ChunkTarget = {
  scope: { table: "orders", column: "created_at", day: "2024-01-01" },
  schema: ordersSchema(),
  by: { kind: "key", column: "id", unsigned: true },
};
const none = { referencingKeys: [], deleteTriggers: [] };
const chunk = { first: "1001", last: "2000", rows: 1_000, fingerprint: "7", sum: "1500500" };

describe("fitsOneStatement", () => {
  it("takes a dense key chunk of a table nothing references and no trigger watches", () => {
    expect(fitsOneStatement(keyed, chunk, none)).toBe(true);
    // Up to four keys a row is still dense: whatever arrived since, at most 4,000 rows come back.
    expect(fitsOneStatement(keyed, { ...chunk, last: "5000" }, none)).toBe(true);
  });

  it("leaves to the locking read what a delete could not undo cheaply or must not run before it is proven", () => {
    // Sparse keys, or no key at all: late rows in the range are not bounded by the chunk's size.
    expect(fitsOneStatement(keyed, { ...chunk, last: "5001" }, none)).toBe(false);
    expect(fitsOneStatement({ ...keyed, by: { kind: "time" } }, { ...chunk, sum: undefined }, none)).toBe(
      false,
    );
    // More rows than one statement hands back.
    const large = { first: "1", last: String(RETURNING_MAX_ROWS + 1), rows: RETURNING_MAX_ROWS + 1 };
    expect(fitsOneStatement(keyed, { ...chunk, ...large }, none)).toBe(false);
    // A trigger the task allowed, or a foreign key that references the table.
    expect(fitsOneStatement(keyed, chunk, { referencingKeys: [], deleteTriggers: ["audit"] })).toBe(false);
    const key = itemsReferencingOrders();
    expect(fitsOneStatement(keyed, chunk, { referencingKeys: [key], deleteTriggers: [] })).toBe(false);
  });
});

describe("deletesReturning", () => {
  const server = (mariadb: boolean, version: string): ServerFacts => ({
    account: "'archiver'@'%'",
    database: "shop",
    mariadb,
    version,
    lowerCaseNames: false,
  });

  it("is MariaDB from 10.5 on, never MySQL", () => {
    expect(deletesReturning(server(true, "10.11.19-MariaDB-0+deb12u1-log"))).toBe(true);
    expect(deletesReturning(server(true, "10.5.0-MariaDB"))).toBe(true);
    expect(deletesReturning(server(true, "11.4.2-MariaDB"))).toBe(true);
    expect(deletesReturning(server(true, "10.4.34-MariaDB"))).toBe(false);
    expect(deletesReturning(server(false, "8.0.36"))).toBe(false);
  });
});
