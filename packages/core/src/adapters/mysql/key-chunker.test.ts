import { describe, expect, it } from "vitest";
import { createKeyChunker } from "./key-chunker";

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
});
