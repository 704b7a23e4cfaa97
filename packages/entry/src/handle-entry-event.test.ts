import type { Runtime } from "@table-archiver/core/runtime";
import { describe, expect, it, vi } from "vitest";
import { encodePubSubData } from "./decode-pubsub-event";
import { createEntryHandler } from "./handle-entry-event";

/**
 * A runtime that only logs: touching anything else (the source, the queue,
 * the warehouse) fails the test, so a refused message provably started nothing.
 */
function loggingOnly() {
  const error = vi.fn();
  const runtime = new Proxy({} as Runtime, {
    get(_target, property) {
      if (property === "logger") return { error, warn: error, info: error, debug: error };
      if (property === "then") return undefined;
      throw new Error(`the refused message reached runtime.${String(property)}`);
    },
  });
  return { handle: createEntryHandler(async () => runtime), error };
}

describe("createEntryHandler: an oversized or huge-keyed message", () => {
  it("acknowledges a cleanup message with a 3 MB unknown key as invalid input on message, unparsed", async () => {
    const { handle, error } = loggingOnly();
    const huge = "k".repeat(3 * 1024 * 1024);
    const document = JSON.stringify({ clean_table: "orders", filter_column: "created_at", [huge]: true });
    const started = performance.now();
    const outcome = await handle({ id: "e1", data: encodePubSubData(document) });
    // Generous: the refusal no longer grows with the key.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(outcome).toEqual({
      outcome: "rejected",
      error: {
        code: "INVALID_INPUT",
        field: "message",
        message: "message: is over 512 KiB (524288 bytes), the most a message may have",
      },
    });
    expect(error).toHaveBeenCalledTimes(1);
  });

  it("names a long unknown key under the limit by its first 64 characters, with no suggestion", async () => {
    const { handle } = loggingOnly();
    const long = "k".repeat(400 * 1024);
    const outcome = await handle({
      id: "e2",
      data: encodePubSubData({ clean_table: "orders", filter_column: "created_at", [long]: true }),
    });
    expect(outcome.outcome).toBe("rejected");
    const rejected = outcome.outcome === "rejected" ? outcome.error : undefined;
    expect(rejected).toMatchObject({ code: "INVALID_INPUT", field: `${long.slice(0, 64)}…` });
    expect(rejected?.message).not.toContain("did you mean");
    expect(rejected?.message.length).toBeLessThan(400);
  });
});
