import { describe, expect, it } from "vitest";
import { dictionaryName, fromDictionaryId, fromDictionaryName } from "./innodb-names";

describe("InnoDB dictionary names", () => {
  it("spell letters, digits and _ as they are and any other ASCII character as @ and four hex digits", () => {
    expect(dictionaryName("shop", "orders_2024", false)).toBe("shop/orders_2024");
    expect(dictionaryName("my-db", "Pa$r t", false)).toBe("my@002ddb/Pa@0024r@0020t");
    expect(dictionaryName("Shop", "Orders", true)).toBe("shop/orders");
  });

  it("give no name for characters beyond ASCII, which some servers spell with codes of their own", () => {
    expect(dictionaryName("shop", "bestellungen_ä", false)).toBeUndefined();
  });

  it("read table names back, and foreign-key ids whose constraint part is not encoded", () => {
    expect(fromDictionaryName("zz@002dc/my@002dchild")).toEqual({ database: "zz-c", name: "my-child" });
    expect(fromDictionaryId("zz@002dc/c@x-1")).toEqual({ database: "zz-c", name: "c@x-1" });
    expect(() => fromDictionaryName("shop/caf@0G")).toThrow(/unknown name encoding/);
  });
});
