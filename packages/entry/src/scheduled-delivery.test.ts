import type { Runtime } from "@table-archiver/core/runtime";
import { createMemoryScheduledDeliveries } from "@table-archiver/core/testing";
import { describe, expect, it, vi } from "vitest";
import { encodePubSubData } from "./decode-pubsub-event";
import { createEntryHandler } from "./handle-entry-event";

/** A runtime with only a logger and the deliveries record: any other part a message reaches fails the test. */
function deliveriesOnly() {
  const deliveries = createMemoryScheduledDeliveries();
  const info = vi.fn();
  const runtime = new Proxy({} as Runtime, {
    get(_target, property) {
      if (property === "logger") return { error: info, warn: info, info, debug: info };
      if (property === "deliveries") return deliveries;
      if (property === "then") return undefined;
      throw new Error(`the message reached runtime.${String(property)}`);
    },
  });
  return { handle: createEntryHandler(async () => runtime), deliveries, info };
}

const scheduled = { policy: "orders", clean_table: "orders", filter_column: "created_at", time_zone: "UTC" };

describe("createEntryHandler: a scheduled run delivered twice", () => {
  it("does nothing for a second delivery of the same policy, mode and scheduled minute", async () => {
    const { handle, deliveries, info } = deliveriesOnly();
    // The first delivery of 02:00 was taken already (by another instance, say).
    expect(await deliveries.first("orders:cleanup:2026-06-01T02:00:00.000Z", 60_000)).toBe(true);

    const outcome = await handle({
      id: "second",
      time: "2026-06-01T02:00:07.312Z",
      data: encodePubSubData(JSON.stringify(scheduled)),
    });

    expect(outcome).toEqual({ outcome: "duplicate", policy: "orders" });
    expect(info).toHaveBeenCalledWith("scheduled run delivered again; nothing done", {
      policy: "orders",
      mode: "cleanup",
      minute: "2026-06-01T02:00:00.000Z",
    });
  });

  it("runs the first delivery of a minute (which here reaches the cleanup, beyond this test's runtime)", async () => {
    const { handle } = deliveriesOnly();
    const first = handle({
      id: "first",
      time: "2026-06-01T02:00:00.100Z",
      data: encodePubSubData(JSON.stringify(scheduled)),
    });
    await expect(first).rejects.toThrow("the message reached runtime.cleanup");
  });
});
