import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TransientError } from "../../../errors";
import { refusal } from "../../../testing/day-deleter-faults";
import { cleanTask, createMemoryFixture, type MemoryFixture } from "../../../testing/memory-fixture";
import { itemsReferencingOrders } from "../../../testing/orders-fixture";
import { LEASE_TTL_MS } from "../day-lease";
import { cleanDay } from "./clean-day";

// What cleanDay checks besides the figures, on the in-memory fakes: the day's lease, DELETE
// triggers and foreign keys (clean-day-triggers and clean-day-foreign-keys.mysql.test.ts on MariaDB).

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

describe("cleanDay guards", () => {
  it("backs off while another task holds the day's lease, and gives its own back", async () => {
    await fx.orders(["2024-05-04"], 3);
    const at = { table: "orders", day: "2024-05-04" };
    expect(await fx.state.claim(at, "other", LEASE_TTL_MS)).toBe(true);
    await expect(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-04"))).rejects.toBeInstanceOf(
      TransientError,
    );
    expect(fx.ids("orders")).toHaveLength(3);

    await fx.state.release(at, "other");
    await cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-04"));
    expect(await fx.state.claim(at, "next", LEASE_TTL_MS)).toBe(true);
  });

  it("refuses a table with a DELETE trigger unless the task allows it", async () => {
    await fx.orders(["2024-06-01"], 3);
    fx.deleter.setSideEffects("orders", { referencingKeys: [], deleteTriggers: ["audit_delete"] });
    const error = await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-06-01")));
    expect(error).toMatchObject({ reason: "trigger" });
    expect(error.message).toContain("audit_delete");
    expect(fx.ids("orders")).toHaveLength(3);

    const allowed = { ...cleanTask("orders", "2024-06-01"), allowDeleteTriggers: true };
    expect(await cleanDay(fx.cleanupDeps(), allowed)).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
  });

  it("refuses a day that rows of another table reference", async () => {
    await fx.orders(["2024-06-02"], 3);
    const key = itemsReferencingOrders();
    fx.deleter.setSideEffects("orders", { referencingKeys: [key], deleteTriggers: [] });
    fx.deleter.setReferences("fk_items_order", ["2"]);

    const error = await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-06-02")));
    expect(error).toMatchObject({ reason: "foreign-key" });
    expect(error.message).toMatch(/1 row of items reference these rows .* would delete those rows too/);
    expect(fx.ids("orders")).toHaveLength(3);
  });
});
