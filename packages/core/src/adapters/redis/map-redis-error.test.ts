import { describe, expect, it } from "vitest";
import { InvalidInputError, TransientError } from "../../errors";
import { mapRedisError, withRedisErrors } from "./map-redis-error";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (message: string, name: string) => Object.assign(new Error(message), { name });

describe("mapRedisError", () => {
  it.each([
    ["refused connection", withCode("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED")],
    ["reset connection", withCode("read ECONNRESET", "ECONNRESET")],
    ["unknown host", withCode("getaddrinfo ENOTFOUND redis", "ENOTFOUND")],
    [
      "retries used up",
      named("Reached the max retries per request limit (which is 1).", "MaxRetriesPerRequestError"),
    ],
    ["closed connection", new Error("Connection is closed.")],
    ["command time-out", new Error("Command timed out")],
    ["BullMQ closed connection", named("Connection is closed.", "ConnectionClosedError")],
    ["server loading", new Error("LOADING Redis is loading the dataset in memory")],
    ["replica after failover", new Error("READONLY You can't write against a read only replica.")],
  ])("maps a %s to TransientError", (_, error) => {
    const mapped = mapRedisError(error);
    expect(mapped).toBeInstanceOf(TransientError);
    expect((mapped as TransientError).cause).toBe(error);
  });

  it.each([
    ["a wrong password", new Error("WRONGPASS invalid username-password pair")],
    ["a wrong key type", new Error("WRONGTYPE Operation against a key holding the wrong kind of value")],
    ["a programming error", new TypeError("x is not a function")],
  ])("leaves %s as it is", (_, error) => {
    expect(mapRedisError(error)).toBe(error);
  });

  it("leaves the core's own errors and non-errors alone", () => {
    const invalid = new InvalidInputError("day", "bad");
    expect(mapRedisError(invalid)).toBe(invalid);
    expect(mapRedisError("text")).toBe("text");
  });

  it("rethrows mapped errors from withRedisErrors", async () => {
    await expect(
      withRedisErrors(() => Promise.reject(withCode("connect ECONNREFUSED", "ECONNREFUSED"))),
    ).rejects.toBeInstanceOf(TransientError);
    await expect(withRedisErrors(async () => 7)).resolves.toBe(7);
  });
});
