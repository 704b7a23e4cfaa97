import { describe, expect, it } from "vitest";
import { silentLogger } from "../../adapters/logging/json-logger";
import { createMemoryScheduledDeliveries } from "../../testing/fakes/memory-scheduled-deliveries";
import { isRepeatedDelivery } from "./scheduled-delivery";

describe("isRepeatedDelivery", () => {
  const deps = () => ({ deliveries: createMemoryScheduledDeliveries(), logger: silentLogger });

  it("lets the first delivery of a scheduled minute through, and no other of that minute", async () => {
    const d = deps();
    const run = (at: string, mode: "migration" | "cleanup" = "cleanup") =>
      isRepeatedDelivery(d, { policy: "orders", mode, publishedAt: new Date(at) });
    expect(await run("2026-06-01T02:00:00.120Z")).toBe(false);
    expect(await run("2026-06-01T02:00:41.900Z")).toBe(true);
    // Another mode, another minute: runs of their own.
    expect(await run("2026-06-01T02:00:00.120Z", "migration")).toBe(false);
    expect(await run("2026-06-01T02:01:00.000Z")).toBe(false);
  });

  it("never holds back a message published by hand", async () => {
    const d = deps();
    const manual = {
      policy: undefined,
      mode: "cleanup" as const,
      publishedAt: new Date("2026-06-01T02:00:00Z"),
    };
    expect(await isRepeatedDelivery(d, manual)).toBe(false);
    expect(await isRepeatedDelivery(d, manual)).toBe(false);
  });
});
