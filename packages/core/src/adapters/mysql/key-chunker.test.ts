import { describe, expect, it } from "vitest";
import type { DayChunk } from "../../model/day-chunks";
import { createKeyChunker, createKeyOrderChunker } from "./key-chunker";

describe("createKeyChunker", () => {
  it("cuts rows streamed in any order into contiguous key chunks whose figures add up to the day", () => {
    const keys = [15, 3, 9, 27, 4, 21, 8, 30, 12];
    const chunker = createKeyChunker(false, 4);
    for (const key of keys) chunker.add(String(key), BigInt(key) * 1000n);
    const chunks = chunker.chunks() ?? [];
    // Sorted: 3 4 8 9 | 12 15 21 27 | 30
    expect(chunks).toEqual([
      { first: "3", last: "11", rows: 4, fingerprint: String((3 + 4 + 8 + 9) * 1000) },
      { first: "12", last: "29", rows: 4, fingerprint: String((12 + 15 + 21 + 27) * 1000) },
      { first: "30", last: "30", rows: 1, fingerprint: "30000" },
    ]);
  });

  it("keeps unsigned keys beyond 2^63 and signed keys below zero exact", () => {
    const big = createKeyChunker(true, 2);
    for (const key of ["18446744073709551615", "9223372036854775808", "1"]) big.add(key, 1n);
    expect(big.chunks()?.map((chunk) => [chunk.first, chunk.last])).toEqual([
      ["1", "18446744073709551614"],
      ["18446744073709551615", "18446744073709551615"],
    ]);
    const signed = createKeyChunker(false, 1);
    for (const key of [-5, 7]) signed.add(key, 2n);
    expect(signed.chunks()?.map((chunk) => [chunk.first, chunk.last])).toEqual([
      ["-5", "6"],
      ["7", "7"],
    ]);
  });

  it("has no chunks for a day without rows", () => {
    expect(createKeyChunker(false).chunks()).toEqual([]);
  });

  it("cuts a 1,000,000-row day read out of key order into 1,000 chunks of 1,000 rows that add up to the day", () => {
    const chunker = createKeyChunker(false);
    const rows = 1_000_000;
    let expected = 0n;
    for (let i = 0; i < rows; i++) {
      const key = (i * 7919) % rows; // every key once, scattered
      const hash = BigInt(key) * 2654435761n;
      expected += hash;
      chunker.add(key, hash);
    }
    const chunks = chunker.chunks() ?? [];
    expect(chunks).toHaveLength(1_000);
    expect(chunks.every((chunk) => chunk.rows === 1_000)).toBe(true);
    expect(chunks.reduce((sum, chunk) => sum + BigInt(chunk.fingerprint), 0n)).toBe(expected);
  });

  it("cuts as sorting every key would, over many blocks, rising or not, signed or not, short or 20-digit keys", () => {
    const random = seeded(7);
    for (const unsigned of [true, false]) {
      // Keys near zero, near the limits of 64 bits and around 2^53: each stored one way or the other.
      const keys = new Set<bigint>();
      while (keys.size < 150_000) {
        const base = [0n, 1n << 53n, unsigned ? (1n << 64n) - 300_000n : -(1n << 63n)][
          keys.size % 3
        ] as bigint;
        keys.add(base + BigInt(Math.floor(random() * 300_000)) - (unsigned || base !== 0n ? 0n : 150_000n));
      }
      // A first run in key order (blocks left as they are), then the rest scattered.
      const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const rising = sorted.slice(0, 70_000);
      const rest = sorted.slice(70_000).sort(() => random() - 0.5);
      const pairs = [...rising, ...rest].map(
        (key) => [key, BigInt(Math.floor(random() * 2 ** 53)) << 11n] as const,
      );
      const chunker = createKeyChunker(unsigned, 997);
      for (const [key, hash] of pairs)
        chunker.add(random() < 0.5 ? key.toString() : asNumberIfSafe(key), hash);
      expect(chunker.chunks()).toEqual(cutBySorting(pairs, 997));
    }
  });

  it("keeps a day of exactly the most rows, and none past it, whatever the order", () => {
    const full = createKeyChunker(true, 2, 5);
    for (const key of [5, 4, 3, 2, 1]) full.add(String(key), 1n);
    expect(full.chunks()?.map((chunk) => chunk.rows)).toEqual([2, 2, 1]);
    const over = createKeyChunker(true, 2, 5);
    for (const key of [6, 5, 4, 3, 2, 1]) over.add(String(key), 1n);
    expect(over.chunks()).toBeUndefined();
  });

  it("never splits equal keys between two chunks", () => {
    const chunker = createKeyChunker(false, 2);
    for (const key of [1, 2, 2, 2, 3]) chunker.add(key, 1n);
    expect(chunker.chunks()).toEqual([
      { first: "1", last: "2", rows: 4, fingerprint: "4" },
      { first: "3", last: "3", rows: 1, fingerprint: "1" },
    ]);
  });

  it("adds up hashes up to 2^64 - 1 exactly, over more rows in a chunk than a double could sum", () => {
    const rows = 2 ** 21 + 5;
    const chunker = createKeyChunker(true, rows);
    const top = (1n << 64n) - 1n;
    for (let key = 0; key < rows; key++) chunker.add(key, top);
    expect(chunker.chunks()).toEqual([
      { first: "0", last: String(rows - 1), rows, fingerprint: (top * BigInt(rows)).toString() },
    ]);
  });

  it("refuses a key that is not a 64-bit integer of the column's sign, naming it", () => {
    expect(() => createKeyChunker(false).add("12a", 1n)).toThrow(/key.*12a/);
    expect(() => createKeyChunker(true).add("-1", 1n)).toThrow(/key.*-1/);
    expect(() => createKeyChunker(true).add("18446744073709551616", 1n)).toThrow(/key.*18446744073709551616/);
    expect(() => createKeyChunker(false).add("9223372036854775808", 1n)).toThrow(/key.*9223372036854775808/);
  });
});

describe("createKeyOrderChunker", () => {
  it("cuts a day streamed in key order as sorting every key would, keeping no row", () => {
    const random = seeded(11);
    for (const unsigned of [true, false]) {
      const keys = new Set<bigint>();
      while (keys.size < 20_000) {
        const base = [0n, 1n << 53n, unsigned ? (1n << 64n) - 40_000n : -(1n << 63n)][
          keys.size % 3
        ] as bigint;
        keys.add(base + BigInt(Math.floor(random() * 40_000)) - (unsigned || base !== 0n ? 0n : 20_000n));
      }
      const pairs = [...keys]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((key) => [key, BigInt(Math.floor(random() * 2 ** 53)) << 11n] as const);
      const chunker = createKeyOrderChunker(unsigned, 997);
      for (const [key, hash] of pairs)
        chunker.add(random() < 0.5 ? key.toString() : asNumberIfSafe(key), hash);
      expect(chunker.chunks()).toEqual(cutBySorting(pairs, 997));
    }
  });

  it("has no chunks once a key comes below the one before it: the promised order was broken", () => {
    const chunker = createKeyOrderChunker(true, 2);
    for (const key of ["1", "2", "3", "2", "4"]) chunker.add(key, 1n);
    expect(chunker.chunks()).toBeUndefined();
  });

  it("keeps a day of exactly the most rows, none past it, equal keys in one chunk, and none for no rows", () => {
    const full = createKeyOrderChunker(false, 2, 5);
    for (const key of [-3, 2, 2, 2, 7]) full.add(key, 1n);
    // The chunk that reached 2 rows at the first 2 keeps the other 2s.
    expect(full.chunks()).toEqual([
      { first: "-3", last: "6", rows: 4, fingerprint: "4" },
      { first: "7", last: "7", rows: 1, fingerprint: "1" },
    ]);
    const over = createKeyOrderChunker(false, 2, 5);
    for (const key of [1, 2, 3, 4, 5, 6]) over.add(key, 1n);
    expect(over.chunks()).toBeUndefined();
    expect(createKeyOrderChunker(true).chunks()).toEqual([]);
  });
});

/** The chunks by the plain definition: sort the keys, start a chunk at every `rowsPerChunk`-th. */
function cutBySorting(pairs: readonly (readonly [bigint, bigint])[], rowsPerChunk: number): DayChunk[] {
  const sorted = [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const chunks: DayChunk[] = [];
  for (let at = 0; at < sorted.length; at += rowsPerChunk) {
    const run = sorted.slice(at, at + rowsPerChunk);
    const next = sorted[at + rowsPerChunk];
    chunks.push({
      first: String(run[0]?.[0]),
      last: String(next ? next[0] - 1n : run.at(-1)?.[0]),
      rows: run.length,
      fingerprint: run.reduce((sum, [, hash]) => sum + hash, 0n).toString(),
    });
  }
  return chunks;
}

function asNumberIfSafe(key: bigint): number | string {
  return Number.isSafeInteger(Number(key)) && BigInt(Number(key)) === key ? Number(key) : key.toString();
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
