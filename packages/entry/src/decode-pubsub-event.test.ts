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
});
