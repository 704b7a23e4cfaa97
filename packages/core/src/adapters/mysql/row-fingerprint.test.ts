import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FingerprintSum } from "./row-fingerprint";

describe("FingerprintSum", () => {
  it("adds 64-bit row hashes exactly, across the folds that keep its doubles exact", () => {
    const sum = new FingerprintSum();
    let expected = 0n;
    // More rows than one fold holds, hashes near 2^64 so every half is near 2^32.
    for (let i = 0; i < (1 << 20) + 1000; i++) {
      const hex = createHash("md5").update(String(i)).digest("hex").slice(0, 16);
      sum.add(hex);
      expected += BigInt(`0x${hex}`);
    }
    sum.add("ffffffffffffffff");
    expected += 0xffffffffffffffffn;
    expect(sum.value()).toBe(expected.toString());
    // Reading the value does not change it.
    expect(sum.value()).toBe(expected.toString());
  });

  it("is 0 for no rows, and counts a duplicate twice (a sum, not XOR)", () => {
    expect(new FingerprintSum().value()).toBe("0");
    const twice = new FingerprintSum();
    twice.add("0000000000000001");
    twice.add("0000000000000001");
    expect(twice.value()).toBe("2");
  });
});
