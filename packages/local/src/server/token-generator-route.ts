import { badRequest, forbidden } from "@table-archiver/core/http";
import type { FastifyInstance } from "fastify";
import { type LocalTokens, UID_PATTERN } from "./local-tokens";
import { allowOnly } from "./route-guards";

export interface TokenGeneratorOptions {
  readonly tokens: LocalTokens;
  /** DEBUG_UIDS; when not empty the uid must be one of them. */
  readonly allowedUids: readonly string[];
}

/**
 * `GET /api/tokenGenerators?uid=<uid>`: answers
 * `{"token","tokenType":"Bearer","expiresIn"}`. Registered only in the debug
 * environment, so elsewhere the path answers 404.
 */
export function registerTokenGenerator(app: FastifyInstance, options: TokenGeneratorOptions): void {
  const allowed = new Set(options.allowedUids);
  app.all("/api/tokenGenerators", { onRequest: allowOnly("GET") }, async (request) => {
    const uid = (request.query as Record<string, unknown>).uid;
    if (uid === undefined || uid === "")
      throw badRequest("uid: is required, the user identifier (?uid=<uid>)");
    if (typeof uid !== "string") throw badRequest("uid: give it once");
    if (!UID_PATTERN.test(uid)) throw badRequest("uid: 1-128 of A-Z a-z 0-9 _ . @ -");
    if (allowed.size > 0 && !allowed.has(uid)) throw forbidden(`uid: "${uid}" is not in DEBUG_UIDS`);
    return options.tokens.issue(uid);
  });
}
