import { HttpError } from "@table-archiver/core/http";
import { describe, expect, it } from "vitest";
import { MAX_READER_BODY_BYTES, parseReaderRequest, type ReaderRequest } from "./parse-reader-request";

const json = { "content-type": "application/json" };

function post(body: unknown, headers: Record<string, string> = json): ReaderRequest {
  const rawBody = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  const parsed = headers["content-type"] === "application/json" ? JSON.parse(rawBody.toString()) : rawBody;
  return { method: "POST", headers, body: parsed, rawBody };
}

function refusal(request: ReaderRequest): HttpError {
  try {
    parseReaderRequest(request);
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error("the request was accepted");
}

describe("parseReaderRequest", () => {
  it("accepts a getSet call parsed by the framework", () => {
    expect(parseReaderRequest(post({ method: "getSet", data: "mig_t" }))).toEqual({
      method: "getSet",
      data: "mig_t",
    });
  });

  it("accepts a rebuildSet call, with or without a dataset, and refuses a dataset that is not a name", () => {
    expect(parseReaderRequest(post({ method: "rebuildSet", data: "mig_t" }))).toEqual({
      method: "rebuildSet",
      data: "mig_t",
    });
    expect(parseReaderRequest(post({ method: "rebuildSet", data: "mig_t", dataset: "archive" }))).toEqual({
      method: "rebuildSet",
      data: "mig_t",
      dataset: "archive",
    });
    for (const dataset of ["a.b", "", 7]) {
      const error = refusal(post({ method: "rebuildSet", data: "mig_t", dataset }));
      expect([error.status, error.message]).toEqual([400, expect.stringMatching(/^dataset: /)]);
    }
  });

  it("parses the bytes itself when the content type is not JSON", () => {
    const request = post('{"method":"getSet","data":"mig_t"}', { "content-type": "text/plain" });
    expect(parseReaderRequest(request).data).toBe("mig_t");
  });

  it.each(["GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])(
    "answers %s with 405 and Allow: POST",
    (method) => {
      const error = refusal({ method, headers: {} });
      expect([error.status, error.headers.allow]).toEqual([405, "POST"]);
    },
  );

  it("refuses a body over 16 KB with 413, and accepts one at the limit", () => {
    const pad = (size: number) => {
      const base = JSON.stringify({ method: "getSet", data: "mig_t", pad: "" });
      return JSON.stringify({ method: "getSet", data: "mig_t", pad: "x".repeat(size - base.length) });
    };
    expect(Buffer.byteLength(pad(MAX_READER_BODY_BYTES))).toBe(MAX_READER_BODY_BYTES);
    expect(parseReaderRequest(post(pad(MAX_READER_BODY_BYTES), { "content-type": "text/plain" })).data).toBe(
      "mig_t",
    );
    expect(refusal(post(pad(MAX_READER_BODY_BYTES + 1), { "content-type": "text/plain" })).status).toBe(413);
  });

  it.each([
    ["invalid JSON", "{method:getSet}", /not valid JSON/],
    ["an empty body", "", /empty/],
    ["a JSON array", "[]", /JSON object/],
    ["a JSON string", '"mig_t"', /JSON object/],
    ["null", "null", /JSON object/],
    ["no method", '{"data":"mig_t"}', /^method: is missing/],
    ["an unknown method", '{"method":"keys","data":"mig_t"}', /^method: unknown/],
    ["a method in other case", '{"method":"GETSET","data":"mig_t"}', /^method: unknown/],
    ["no data", '{"method":"getSet"}', /^data: is missing/],
    ["numeric data", '{"method":"getSet","data":42}', /^data: must be a string/],
    ["array data", '{"method":"getSet","data":["mig_t"]}', /^data: must be a string/],
    ["object data", '{"method":"getSet","data":{"key":"mig_t"}}', /^data: must be a string/],
    ["null data", '{"method":"getSet","data":null}', /^data: must be a string/],
  ])("answers %s with 400 saying what is wrong", (_label, text, message) => {
    const error = refusal(post(text, { "content-type": "text/plain" }));
    expect([error.status, error.code]).toEqual([400, "INVALID_INPUT"]);
    expect(error.message).toMatch(message);
  });
});
