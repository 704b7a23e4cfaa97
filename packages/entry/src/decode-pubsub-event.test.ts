import { InvalidInputError } from "@table-archiver/core";
import { describe, expect, it } from "vitest";
import { decodePubSubEvent, encodePubSubData } from "./decode-pubsub-event";

describe("decodePubSubEvent", () => {
  it("round-trips a JSON document through base64 message data", () => {
    const document = { clean_table: "orders", filter_column: "created_at", note: "ñ 🎉" };
    expect(decodePubSubEvent(encodePubSubData(document))).toEqual(document);
  });

  it.each([
    ["no data", undefined],
    ["no message", {}],
    ["empty data", { message: { data: "" } }],
    ["data that is not JSON", { message: { data: Buffer.from("{nope").toString("base64") } }],
  ])("rejects %s as invalid input on message.data", (_case, data) => {
    const error = (() => {
      try {
        decodePubSubEvent(data);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe("message.data");
  });

  it("refuses a message over 512 KiB before parsing it, naming message and the limit", () => {
    // Not JSON at all: parsing it would answer "is not valid JSON"; the size is judged first.
    const data = { message: { data: Buffer.from(`{${"x".repeat(600 * 1024)}`).toString("base64") } };
    expect(() => decodePubSubEvent(data)).toThrow(
      new InvalidInputError("message", "is over 512 KiB (524288 bytes), the most a message may have"),
    );
  });
});
