import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@table-archiver/core";
import { parse } from "dotenv";
import { describe, expect, it } from "vitest";
import { loadLocalConfig } from "./load-local-config";

/**
 * A LOCAL_TOKEN_SECRET copied from the docs signs tokens anyone who read them
 * can forge, so the stack refuses it at start. The secret is read from the
 * page itself (its setup's `.env`, parsed as dotenv parses it), so the page
 * cannot print a secret the stack would accept.
 */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const page = readFileSync(join(ROOT, "docs", "local-deployment.md"), "utf8");
const documented = [...page.matchAll(/^LOCAL_TOKEN_SECRET=.*$/gm)].map(
  ([line]) => parse(line).LOCAL_TOKEN_SECRET ?? "",
);
/** What earlier versions of the page printed, and so what `.env` files already hold. */
const EARLIER = "change-me-to-at-least-32-characters!";

function refusal(secret: string): unknown {
  try {
    loadLocalConfig({ LOCAL_TOKEN_SECRET: secret });
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("LOCAL_TOKEN_SECRET", () => {
  it("is printed by docs/local-deployment.md as an obvious placeholder", () => {
    expect(documented.length).toBeGreaterThan(0);
    for (const secret of documented) expect(secret).toMatch(/^<.*openssl rand -hex 32.*>$/);
  });

  it.each([...documented, EARLIER])("refuses the documented example %s, saying how to make one", (secret) => {
    const error = refusal(secret);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe("LOCAL_TOKEN_SECRET");
    const { message } = error as ConfigError;
    expect(message).toMatch(/^invalid configuration: LOCAL_TOKEN_SECRET: .*docs\/local-deployment\.md/);
    expect(message).toContain("openssl rand -hex 32");
    // The message names the variable, never its value.
    expect(message).not.toContain(secret);
  });

  it("accepts a secret of one's own", () => {
    const secret = randomBytes(32).toString("hex");
    expect(loadLocalConfig({ LOCAL_TOKEN_SECRET: secret }).local.tokenSecret).toBe(secret);
  });

  it("stops pnpm dev at start, before it connects to anything", { timeout: 30_000 }, () => {
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", join(ROOT, "packages/local/src/server/dev.ts")],
      {
        cwd: ROOT,
        // Nothing listens on these: were the secret let through, the stack would fail differently.
        env: {
          PATH: process.env.PATH ?? "",
          LOCAL_TOKEN_SECRET: EARLIER,
          MYSQL_URL: "mysql://root@127.0.0.1:1/none",
          REDIS_URL: "redis://127.0.0.1:1",
          PORT: "1",
        },
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: invalid configuration: LOCAL_TOKEN_SECRET: .*openssl rand -hex 32/m);
    expect(run.stdout).not.toContain("local stack on");
  });
});
