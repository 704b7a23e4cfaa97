import type { IncomingHttpHeaders } from "node:http";
import { isIdentifier } from "@table-archiver/core";
import { badRequest, methodNotAllowed, payloadTooLarge } from "@table-archiver/core/http";

/** Bodies above this are refused with 413; a real request is under 100 bytes. */
export const MAX_READER_BODY_BYTES = 16 * 1024;

/** The slice of the Functions Framework's request the reader reads. */
export interface ReaderRequest {
  readonly method?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** What the framework's body parsers made of the body. */
  readonly body?: unknown;
  /** The body's bytes, kept by the framework whatever the content type. */
  readonly rawBody?: Buffer | undefined;
}

/**
 * A well-formed call; `data` is not yet authorized. `rebuildSet` first writes
 * back to Redis the days the warehouse's durable record holds for the table
 * (in `dataset`, else WAREHOUSE_DATASET), then answers as `getSet`.
 */
export type ReaderCall =
  | { readonly method: "getSet"; readonly data: string }
  | { readonly method: "rebuildSet"; readonly data: string; readonly dataset?: string };

const EXPECTED = 'expected {"method":"getSet","data":"mig_<table>"}';

/**
 * Checks the HTTP method, the body size and the body's shape. The body is
 * parsed from its bytes whatever the content type, so `curl -d` without a
 * header works too; a JSON body the framework already parsed is taken as is.
 */
export function parseReaderRequest(req: ReaderRequest): ReaderCall {
  if (req.method !== "POST") throw methodNotAllowed("POST");
  const size = req.rawBody?.length ?? Number(req.headers["content-length"] ?? 0);
  if (size > MAX_READER_BODY_BYTES) throw payloadTooLarge(MAX_READER_BODY_BYTES);
  const body = readJson(req);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest(`the body must be a JSON object: ${EXPECTED}`);
  }
  const { method, data, dataset } = body as Record<string, unknown>;
  if (method === undefined) throw badRequest(`method: is missing; ${EXPECTED}`);
  if (method !== "getSet" && method !== "rebuildSet") {
    throw badRequest('method: unknown method; the methods are "getSet" and "rebuildSet"');
  }
  if (data === undefined) throw badRequest(`data: is missing; ${EXPECTED}`);
  if (typeof data !== "string") throw badRequest(`data: must be a string, the set name mig_<table>`);
  if (method === "getSet") return { method, data };
  if (dataset === undefined) return { method, data };
  if (typeof dataset !== "string" || !isIdentifier(dataset)) {
    throw badRequest("dataset: must be a dataset name (letters, digits, _)");
  }
  return { method, data, dataset };
}

function readJson(req: ReaderRequest): unknown {
  const { body, rawBody } = req;
  if (isParsedJson(req.headers["content-type"], body)) return body;
  if (!rawBody || rawBody.length === 0) throw badRequest(`the body is empty; ${EXPECTED}`);
  try {
    return JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw badRequest(`the body is not valid JSON; ${EXPECTED}`);
  }
}

function isParsedJson(contentType: string | undefined, body: unknown): boolean {
  return (
    /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType ?? "") &&
    typeof body === "object" &&
    body !== null &&
    !Buffer.isBuffer(body)
  );
}
