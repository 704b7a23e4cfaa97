import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import { MAX_MESSAGE_BYTES, refuseOversizedMessage } from "./message-size";
import { parseMessage } from "./parse-message";

/** `prefix` then digits of `index`, `length` characters in all. */
const name = (prefix: string, index: number, length: number) =>
  `${prefix}${String(index).padStart(length - prefix.length, "0")}`;

describe("MAX_MESSAGE_BYTES", () => {
  it("fits the largest migration message the archiver can act on, indented", () => {
    const tables = Array.from({ length: 1000 }, (_, i) => i);
    const message = {
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: tables.map((i) => name("t", i, 64)),
      destination_tables: tables.map((i) => `${name("p", i, 30)}.${name("d", i, 128)}.${name("t", i, 128)}`),
      filter_columns: tables.map((i) => name("c", i, 64)),
      tasks_enqueued_limit: 10_000,
      min_date_limit_iso: "2024-01-01T00:00:00",
    };
    const text = JSON.stringify(message, null, 2);
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_MESSAGE_BYTES);
    expect(() => refuseOversizedMessage(Buffer.byteLength(text))).not.toThrow();
    expect(parseMessage(JSON.parse(text)).mode).toBe("migration");
  });

  it("refuses one byte more, naming message and the limit", () => {
    expect(() => refuseOversizedMessage(MAX_MESSAGE_BYTES)).not.toThrow();
    let error: unknown;
    try {
      refuseOversizedMessage(MAX_MESSAGE_BYTES + 1);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe("message");
    expect((error as InvalidInputError).message).toBe(
      "message: is over 512 KiB (524288 bytes), the most a message may have",
    );
  });
});
