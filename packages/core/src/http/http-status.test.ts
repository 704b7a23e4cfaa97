import { describe, expect, it } from "vitest";
import { ConfigError, InvalidInputError, RefusalError, TransientError } from "../errors";
import { HttpError, toHttpError } from "./http-error";
import { HTTP_STATUS_BY_CODE, httpStatusOf } from "./http-status";

describe("httpStatusOf", () => {
  it("gives each code one status, 500 for a code it does not know", () => {
    expect(HTTP_STATUS_BY_CODE).toEqual({
      INVALID_INPUT: 400,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      PAYLOAD_TOO_LARGE: 413,
      VERIFICATION_FAILED: 422,
      INVALID_CONFIG: 500,
      NOT_A_SET: 500,
      INTERNAL: 500,
      TRANSIENT: 503,
    });
    expect(httpStatusOf("ER_LOCK_DEADLOCK")).toBe(500);
    expect(httpStatusOf("toString")).toBe(500);
  });
});

describe("toHttpError", () => {
  it("answers the archiver's errors with their code's status and message", () => {
    const answers = [
      new InvalidInputError("day", "not a day"),
      new RefusalError("figures differ"),
      new TransientError("redis is down"),
      new ConfigError("LOADER_TABLE: no primary key"),
    ].map(toHttpError);
    expect(answers.map((a) => [a.status, a.code, a.message])).toEqual([
      [400, "INVALID_INPUT", "day: not a day"],
      [422, "VERIFICATION_FAILED", "figures differ"],
      [503, "TRANSIENT", "redis is down"],
      [500, "INVALID_CONFIG", "LOADER_TABLE: no primary key"],
    ]);
  });

  it("judges an error from another copy of the core by its code", () => {
    const copy = Object.assign(new Error("figures differ"), { code: "VERIFICATION_FAILED" });
    expect(toHttpError(copy)).toMatchObject({ status: 422, code: "VERIFICATION_FAILED" });
  });

  it("keeps an HttpError, and tells nothing of anything else", () => {
    const refusal = new HttpError("METHOD_NOT_ALLOWED", "use POST", { allow: "POST" });
    expect(toHttpError(refusal)).toBe(refusal);
    expect(refusal.status).toBe(405);
    const internal = toHttpError(Object.assign(new Error("secret detail"), { code: "ER_ACCESS_DENIED" }));
    expect([internal.status, internal.code]).toEqual([500, "INTERNAL"]);
    expect(internal.message).not.toContain("secret");
  });
});
