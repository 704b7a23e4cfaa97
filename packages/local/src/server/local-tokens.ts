import { randomBytes } from "node:crypto";
import { forbidden, unauthenticated } from "@table-archiver/core/http";
import type { Logger } from "@table-archiver/core/ports";
import { errors, jwtVerify, SignJWT } from "jose";

/** The `iss` of every local token; a token from anywhere else is refused. */
const LOCAL_TOKEN_ISSUER = "table-archiver-local";

/** A uid the token generator accepts: what fits in a log line and a header without escaping. */
export const UID_PATTERN = /^[A-Za-z0-9_.@-]{1,128}$/;

export interface IssuedToken {
  readonly token: string;
  readonly tokenType: "Bearer";
  /** Seconds until the token expires. */
  readonly expiresIn: number;
}

export interface LocalTokens {
  issue(uid: string): Promise<IssuedToken>;
  /** The token's uid; refuses a missing, expired, tampered or foreign token with 401. */
  verify(token: string | undefined): Promise<string>;
}

export interface LocalTokenOptions {
  /** LOCAL_TOKEN_SECRET; when absent a random secret is made, valid until the process ends. */
  readonly secret: string | undefined;
  readonly ttlSeconds: number;
  /** DEBUG_UIDS; when not empty, only these uids hold valid tokens. */
  readonly allowedUids: readonly string[];
  readonly clock?: () => Date;
  readonly logger: Logger;
}

/**
 * Access tokens of the local deployment: HS256 JWTs signed with
 * jose, `sub` = uid, `iss` = table-archiver-local, with `iat` and `exp`.
 */
export function createLocalTokens(options: LocalTokenOptions): LocalTokens {
  const clock = options.clock ?? (() => new Date());
  const key =
    options.secret === undefined ? randomSecret(options.logger) : new TextEncoder().encode(options.secret);
  const allowed = new Set(options.allowedUids);
  // Signatures already checked, by token: HMAC through WebCrypto is the
  // largest cost of a reader request. Expiry is still checked on every use.
  const verified = new Map<string, VerifiedToken>();

  return {
    async issue(uid) {
      const now = Math.floor(clock().getTime() / 1000);
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(uid)
        .setIssuer(LOCAL_TOKEN_ISSUER)
        .setIssuedAt(now)
        .setExpirationTime(now + options.ttlSeconds)
        .sign(key);
      return { token, tokenType: "Bearer", expiresIn: options.ttlSeconds };
    },

    async verify(token) {
      if (!token) {
        throw unauthenticated("send Authorization: Bearer <token>; get a token from /api/tokenGenerators");
      }
      const now = clock();
      let known = verified.get(token);
      if (!known) {
        known = await verifySignature(token, key, now);
        if (verified.size >= MAX_VERIFIED) verified.clear();
        verified.set(token, known);
      }
      // jose's rule: a token is expired from its `exp` second on.
      if (known.exp <= Math.floor(now.getTime() / 1000)) throw expired();
      if (allowed.size > 0 && !allowed.has(known.subject)) {
        throw forbidden(`uid "${known.subject}" is not in DEBUG_UIDS`);
      }
      return known.subject;
    },
  };
}

interface VerifiedToken {
  readonly subject: string;
  readonly exp: number;
}

/** Tokens remembered as verified; the memory is dropped whole when full. */
const MAX_VERIFIED = 1_000;

async function verifySignature(token: string, key: Uint8Array, now: Date): Promise<VerifiedToken> {
  let claims: { sub?: unknown; exp?: unknown };
  try {
    ({ payload: claims } = await jwtVerify(token, key, {
      issuer: LOCAL_TOKEN_ISSUER,
      algorithms: ["HS256"],
      requiredClaims: ["sub", "iat", "exp"],
      currentDate: now,
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw expired();
    throw unauthenticated("the token is not valid (bad signature, issuer or claims)");
  }
  const { sub, exp } = claims;
  if (typeof sub !== "string" || !UID_PATTERN.test(sub) || typeof exp !== "number") {
    throw unauthenticated("the token names no valid uid");
  }
  return { subject: sub, exp };
}

function expired() {
  return unauthenticated("the token has expired; get a new one from /api/tokenGenerators");
}

function randomSecret(logger: Logger): Uint8Array {
  logger.warn(
    "LOCAL_TOKEN_SECRET is not set: local tokens are signed with a random secret and stop working when the server restarts",
  );
  return new Uint8Array(randomBytes(32));
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case, as HTTP allows). */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return /^bearer +([A-Za-z0-9_.~+/=-]+) *$/i.exec(value ?? "")?.[1];
}
