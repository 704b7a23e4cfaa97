import { describe, expect, it } from "vitest";
import { createChunkPacer, joinChunks } from "./chunk-pacer";

describe("createChunkPacer", () => {
  it("takes one planned chunk at a time without a target", () => {
    const pacer = createChunkPacer({ targetMs: 0, max: 50 });
    pacer.observe(100, 1, 100);
    expect(pacer.next(10)).toBe(1);
  });

  it("grows toward the target at most doubling, and never past the cap or what is left", () => {
    const pacer = createChunkPacer({ targetMs: 100, max: 6 });
    expect(pacer.next(20)).toBe(1);
    // 100 rows in 5 ms: 20 chunks of 100 rows would fill 100 ms.
    pacer.observe(100, 5, 100);
    expect(pacer.next(20)).toBe(2);
    pacer.observe(200, 10, 100);
    expect(pacer.next(20)).toBe(4);
    pacer.observe(400, 20, 100);
    expect(pacer.next(20)).toBe(6);
    expect(pacer.next(3)).toBe(3);
  });

  it("shrinks to the slower pace from the very next delete, and grows back gradually", () => {
    const pacer = createChunkPacer({ targetMs: 30, max: 50 });
    // 1 ms a chunk of 100 rows: grows by doubling toward 30 chunks.
    for (const chunks of [1, 2, 4, 8, 16]) pacer.observe(chunks * 100, chunks, 100);
    expect(pacer.next(50)).toBe(30);
    // The server turns 2.5 times slower: 30 chunks took 75 ms. The next delete is sized by that pace alone.
    pacer.observe(3_000, 75, 100);
    expect(pacer.next(50)).toBe(12);
    // Back to 1 ms a chunk: one fast delete does not undo the slowdown.
    pacer.observe(1_200, 12, 100);
    expect(pacer.next(50)).toBeLessThan(24);
    expect(pacer.next(50)).toBeGreaterThan(12);
  });

  it("shrinks when deletes get slower, and starts over at one chunk when a chunk was found gone", () => {
    const pacer = createChunkPacer({ targetMs: 100, max: 50 });
    pacer.observe(100, 5, 100);
    pacer.observe(200, 10, 100);
    expect(pacer.next(50)).toBe(4);
    pacer.observe(400, 400, 100);
    expect(pacer.next(50)).toBeLessThan(4);
    pacer.observe(0, 1, 100);
    expect(pacer.next(50)).toBe(1);
  });
});

describe("joinChunks", () => {
  it("joins consecutive chunks into one range with their figures summed, exactly beyond 2^53", () => {
    const joined = joinChunks([
      {
        first: "1",
        last: "9007199254740993",
        rows: 2,
        fingerprint: "18446744073709551615",
        sum: "9007199254740994",
      },
      {
        first: "9007199254740995",
        last: "9007199254740996",
        rows: 2,
        fingerprint: "1",
        sum: "18014398509481991",
      },
    ]);
    expect(joined).toEqual({
      first: "1",
      last: "9007199254740996",
      rows: 4,
      fingerprint: "18446744073709551616",
      sum: "27021597764222985",
    });
  });

  it("keeps time chunks without a key sum", () => {
    const joined = joinChunks([
      { first: "2024-01-01 00:00:00", last: "2024-01-01 01:00:00", rows: 3, fingerprint: "5" },
      { first: "2024-01-01 02:00:00", last: "2024-01-01 03:00:00", rows: 1, fingerprint: "7" },
    ]);
    expect(joined).toEqual({
      first: "2024-01-01 00:00:00",
      last: "2024-01-01 03:00:00",
      rows: 4,
      fingerprint: "12",
    });
  });
});
