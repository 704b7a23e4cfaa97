import { ConfigError } from "@table-archiver/core";
import { describe, expect, it } from "vitest";
import { loadLocalConfig } from "./load-local-config";

/**
 * A ConfigError reaches logs and HTTP answers, so it never quotes a variable
 * that can hold a secret, whole or in pieces. Checked over many generated
 * passwords made of the characters that break URLs and comma-separated lists.
 * It lives in packages/local, the one package that parses every variable.
 */

/** A fixed sequence of pseudo-random numbers in [0, 1) (mulberry32), so every run checks the same passwords. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// Every other character is a capital no error's wording puts next to these others, so any run of
// three characters of a password is its own: found in an error, it was copied from the password.
const MARKERS = "BFJVXZ";
const OTHERS = ",/@:,/@:?#%&=+;!~*'()[] 0123456789abcdefghijklmnopqrstuvwxyz";
const random = numbers(20_240_229);
const pick = (from: string) => from[Math.floor(random() * from.length)] ?? "";
const passwords = Array.from({ length: 200 }, () =>
  Array.from({ length: 6 + Math.floor(random() * 20) }, (_, i) => pick(i % 2 === 0 ? MARKERS : OTHERS)).join(
    "",
  ),
);

/** The runs of three characters or more of `secret`, as written and as a URL would carry them. */
function fragments(secret: string): string[] {
  const runs = (text: string) =>
    Array.from({ length: Math.max(0, text.length - 2) }, (_, start) => text.slice(start, start + 3));
  return [...runs(secret), ...runs(encodeURIComponent(secret))].filter((run) => /[BFJVXZ]/.test(run));
}

/** Each secret-bearing variable set from `secret`, beside one bad variable so that an error is certain. */
function environments(secret: string): Record<string, string>[] {
  const bad = { WORKER_CONCURRENCY: "0" };
  return [
    { ...bad, CLEANUP_REPLICA_URLS: `mysql://repl:${secret}@10.0.0.9:3306` },
    { ...bad, CLEANUP_REPLICA_URLS: `mysql://r1@10.0.0.8,mysql://${secret}:${secret}@10.0.0.9` },
    { ...bad, CLEANUP_REPLICA_URLS: secret, CLEANUP_MAX_REPLICA_LAG_SECONDS: "5" },
    { ...bad, MYSQL_URL: `mysql://archiver:${secret}@db:3306/shop` },
    { ...bad, REDIS_URL: `redis://:${secret}@cache:6379` },
    { ...bad, MYSQL_PASSWORD: secret, REDIS_AUTH: secret, LOCAL_TOKEN_SECRET: secret },
  ];
}

function configError(env: Record<string, string>): ConfigError {
  try {
    loadLocalConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

describe("a ConfigError and the secrets of the configuration", () => {
  it("quotes no three characters of a password, over 200 generated passwords in every variable that holds one", () => {
    expect(new Set(passwords).size).toBe(passwords.length);
    for (const password of passwords) {
      for (const env of environments(password)) {
        const error = configError(env);
        const said = `${error.message}\n${error.field ?? ""}`;
        const leaked = fragments(password).filter((fragment) => said.includes(fragment));
        expect({ password, env, leaked }).toEqual({ password, env, leaked: [] });
      }
    }
  });

  it("names a bad replica URL by its position, saying to percent-encode what a password must not hold raw", () => {
    const error = configError({ CLEANUP_REPLICA_URLS: "mysql://repl:se,cr/et99@10.0.0.9:3306" });
    expect(error.message).toBe(
      "invalid configuration: CLEANUP_REPLICA_URLS: entries 1 and 2 of 2 are not mysql://[user[:password]@]host[:port] URLs " +
        "(the value is split on commas; percent-encode , / @ : ? # % and spaces in a user or password)",
    );
    expect(error.field).toBe("CLEANUP_REPLICA_URLS");
  });

  it("takes a replica password with those characters percent-encoded, as the driver decodes it", () => {
    for (const password of passwords.slice(0, 20)) {
      const url = `mysql://repl:${encodeURIComponent(password)}@10.0.0.9:3306`;
      const { replicaUrls } = loadLocalConfig({ CLEANUP_REPLICA_URLS: `${url},mysql://r2@10.0.0.8` }).cleanup;
      expect(replicaUrls).toEqual([url, "mysql://r2@10.0.0.8"]);
      expect(decodeURIComponent(new URL(url).password)).toBe(password);
    }
  });
});
