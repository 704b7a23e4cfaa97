import { HttpError } from "@table-archiver/core/http";
import { describe, expect, it } from "vitest";
import { authorizeSetKey } from "./authorize-set-key";

describe("authorizeSetKey", () => {
  it.each(["mig_orders", "mig_A", "mig_9", "mig_t$x", "mig_mig_", `mig_${"a".repeat(64)}`])(
    "accepts the migrated-days set %s",
    (key) => {
      expect(authorizeSetKey(key)).toBe(key);
    },
  );

  it.each([
    ["the prefix alone", "mig_"],
    ["a glob star", "mig_x*"],
    ["a glob class", "mig_[ab]"],
    ["a glob question mark", "mig_?"],
    ["a space", "mig_a b"],
    ["a trailing newline", "mig_orders\n"],
    ["an inner newline", "mig_a\nKEYS"],
    ["a carriage return", "mig_a\r"],
    ["a NUL byte", "mig_a\u0000"],
    ["a 65-character table", `mig_${"a".repeat(65)}`],
    ["a very long name", `mig_${"a".repeat(10_000)}`],
    ["another key", "transportitas"],
    ["the prefix in capitals", "MIG_orders"],
    ["a key after the prefix", "x_mig_orders"],
    ["a dot", "mig_a.b"],
    ["a colon", "mig_a:b"],
    ["a hyphen", "mig_a-b"],
    ["a non-ASCII letter", "mig_ñ"],
    ["the empty string", ""],
  ])("refuses %s with 403", (_label, key) => {
    let thrown: unknown;
    try {
      authorizeSetKey(key);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect((thrown as HttpError).status).toBe(403);
    expect((thrown as HttpError).code).toBe("FORBIDDEN");
  });
});
