import { methodNotAllowed } from "@table-archiver/core/http";
import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { bearerToken, type LocalTokens } from "./local-tokens";

declare module "fastify" {
  interface FastifyRequest {
    /** The uid of the request's verified local token. */
    uid?: string;
  }
}

/** Answers 405 (with `Allow`) before anything else when the method is not `allowed`. */
export function allowOnly(allowed: "GET" | "POST"): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    if (request.method !== allowed) throw methodNotAllowed(allowed);
  };
}

/**
 * Requires `Authorization: Bearer <token>` with a valid local token, before
 * the body is read, and records its uid on the request. Locally this stands
 * where IAM stands in front of a deployed function.
 */
export function requireBearer(tokens: LocalTokens): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    request.uid = await tokens.verify(bearerToken(request.headers.authorization));
  };
}
