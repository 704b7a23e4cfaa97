import { describe, expect, it } from "vitest";
import { constraintOfId, dictionaryNames, fromDictionaryName } from "./innodb-names";

describe("InnoDB dictionary names", () => {
  it("spell letters, digits and _ as they are and any other ASCII character as @ and four hex digits", () => {
    expect(dictionaryNames("shop", "orders_2024", false)).toEqual(["shop/orders_2024"]);
    expect(dictionaryNames("my-db", "Pa$r t", false)).toEqual(["my@002ddb/Pa@0024r@0020t", "my-db/Pa$r t"]);
    expect(dictionaryNames("Shop", "Orders", true)).toEqual(["shop/orders"]);
  });

  it("give no name for characters beyond ASCII, which some servers spell with codes of their own", () => {
    expect(dictionaryNames("shop", "bestellungen_ä", false)).toBeUndefined();
  });

  it("read table names back, and the constraint of an id with or without its database (MariaDB 12.1 on)", () => {
    expect(fromDictionaryName("zz@002dc/my@002dchild")).toEqual({ database: "zz-c", name: "my-child" });
    expect(constraintOfId("zz@002dc/c@x-1", "zz@002dc/my@002dchild")).toBe("c@x-1");
    expect(constraintOfId("c/x", "zz@002dc/my@002dchild")).toBe("c/x");
    expect(() => fromDictionaryName("shop/caf@0G")).toThrow(/unknown name encoding/);
  });
});
