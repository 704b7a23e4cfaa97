import { forbidden, methodNotAllowed } from "@table-archiver/core/http";
import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { bearerToken, type LocalTokens } from "./local-tokens";

declare module "fastify" {
  interface FastifyRequest {
    /** The uid of the request's verified local token. */
    uid?: string;
  }
}

/** `localhost`, `127.0.0.1` or `[::1]`, with or without a port: the names of this machine's loopback. */
const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/**
 * Answers 403 to a request whose `Host` is not a loopback name, before
 * anything else. Listening on 127.0.0.1 keeps other machines out but not a
 * web page in the developer's browser: through DNS rebinding its own name
 * resolves to 127.0.0.1, and then it could take a token from the debug token
 * generator and publish a cleanup with it. The browser still sends the page's
 * name as `Host`, which is what this refuses.
 */
export function requireLoopbackHost(): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const host = request.headers.host ?? "";
    if (LOOPBACK_HOST.test(host)) return;
    const named = host === "" ? "no Host header" : `Host ${JSON.stringify(host.slice(0, 100))}`;
    throw forbidden(
      `${named}: the local server answers only requests addressed to localhost, 127.0.0.1 and [::1] (any port)`,
    );
  };
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
