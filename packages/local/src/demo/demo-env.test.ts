import { describe, expect, it } from "vitest";
import { loadLocalConfig } from "../config/load-local-config";
import { cliOverrides, continueCommands, demoEnv, demoSettings, shellQuote } from "./demo-env";

/** `.env` as docs/local-deployment.md has it written, for `pnpm dev`, with a secret of one's own. */
const LOCAL_STACK_ENV = {
  APP_ENV: "debug",
  DEBUG_UIDS: "alice",
  LOCAL_TOKEN_SECRET: "0f".repeat(32),
  PORT: "3001",
};

describe("demoSettings", () => {
  it("defaults to where pnpm archiver looks without settings", () => {
    expect(demoSettings({})).toEqual({
      database: "archiver_demo",
      table: "orders",
      destination: "orders_archive",
      duckdbPath: ".data/warehouse.duckdb",
      queuePrefix: "archiver",
      days: 730,
      perDay: 300,
    });
  });

  it("takes only its own variables, never the archiver's", () => {
    const settings = demoSettings({
      DUCKDB_PATH: "/var/lib/archive/warehouse.duckdb",
      LOCAL_QUEUE_PREFIX: "team",
      ARCHIVER_DEMO_TABLE: "orders_t1",
      ARCHIVER_DEMO_DATABASE: "demo_t1",
      ARCHIVER_DEMO_QUEUE_PREFIX: "demo_t1",
      ARCHIVER_DEMO_DUCKDB_PATH: "/tmp/t1.duckdb",
      ARCHIVER_DEMO_DAYS: "400",
      ARCHIVER_DEMO_ORDERS_PER_DAY: "20",
    });
    expect(settings).toEqual({
      database: "demo_t1",
      table: "orders_t1",
      destination: "orders_t1_archive",
      duckdbPath: "/tmp/t1.duckdb",
      queuePrefix: "demo_t1",
      days: 400,
      perDay: 20,
    });
  });

  it("names every bad variable", () => {
    expect(() =>
      demoSettings({
        ARCHIVER_DEMO_TABLE: "x; DROP",
        ARCHIVER_DEMO_DAYS: "365",
        ARCHIVER_DEMO_DATABASE: "ok",
      }),
    ).toThrow(/ARCHIVER_DEMO_TABLE: .*; ARCHIVER_DEMO_DAYS: 367 to 10000/);
  });
});

describe("demoEnv", () => {
  it("keeps the user's server and credentials but always uses the demo's database, warehouse and queue", () => {
    const env = demoEnv(
      {
        MYSQL_URL: "mysql://app:secret@db.internal:3307/production",
        DUCKDB_PATH: "/var/lib/archive/warehouse.duckdb",
        LOCAL_QUEUE_PREFIX: "team",
        WAREHOUSE: "bigquery",
        QUEUE: "cloud-tasks",
        REDIS_URL: "redis://cache:6379/2",
      },
      demoSettings({}),
    );
    expect(env).toMatchObject({
      MYSQL_URL: "mysql://app:secret@db.internal:3307/archiver_demo",
      DUCKDB_PATH: ".data/warehouse.duckdb",
      LOCAL_QUEUE_PREFIX: "archiver",
      WAREHOUSE: "duckdb",
      QUEUE: "local",
      REDIS_URL: "redis://cache:6379/2",
    });
  });

  it("defaults to root on localhost", () => {
    expect(demoEnv({}, demoSettings({})).MYSQL_URL).toBe("mysql://root@127.0.0.1:3306/archiver_demo");
  });

  it("leaves out the local stack's variables, so a .env made for pnpm dev cannot stop the demo", () => {
    const env = demoEnv(
      { ...LOCAL_STACK_ENV, LOCAL_TOKEN_SECRET: "short", LOADER_TABLE: "not a table!" },
      demoSettings({}),
    );
    const config = loadLocalConfig(env);
    expect(config.local.debugUids).toEqual([]);
    expect(config.local.tokenSecret).toBeUndefined();
    expect(config.local.appEnv).toBe("local");
  });
});

describe("continueCommands", () => {
  const clean = `'{"clean_table":"orders","filter_column":"created_at"}'`;

  it("are the README's commands when the CLI's settings already point at the demo's data", () => {
    const env = { ...LOCAL_STACK_ENV, MYSQL_URL: "mysql://root@127.0.0.1:3306/archiver_demo" };
    expect(continueCommands(env, demoEnv(env, demoSettings(env)), "orders")).toEqual([
      "pnpm archiver status",
      `pnpm archiver publish --message ${clean}`,
      `pnpm archiver publish --wait --message '{"clean_table":"orders","filter_column":"created_at","dry_run":false}'`,
    ]);
  });

  it("set in front of each command whatever the CLI would otherwise take from elsewhere", () => {
    const env = {
      MYSQL_URL: "mysql://root@db.internal/production",
      DUCKDB_PATH: "/var/lib/archive.duckdb",
      LOCAL_QUEUE_PREFIX: "team",
      WAREHOUSE: "bigquery",
      QUEUE: "cloud-tasks",
    };
    const [status] = continueCommands(env, demoEnv(env, demoSettings(env)), "orders");
    expect(status).toBe(
      "MYSQL_URL=mysql://root@db.internal/archiver_demo DUCKDB_PATH=.data/warehouse.duckdb " +
        "LOCAL_QUEUE_PREFIX=archiver WAREHOUSE=duckdb QUEUE=local pnpm archiver status",
    );
  });

  it("never print MYSQL_URL's password", () => {
    const env = { MYSQL_URL: "mysql://app:s3cret@db.internal:3307/production" };
    expect(cliOverrides(env, demoEnv(env, demoSettings(env)))).toEqual([
      { name: "MYSQL_URL", value: "mysql://app:***@db.internal:3307/archiver_demo" },
    ]);
  });

  it("need nothing in front for a URL the CLI reads the same", () => {
    const env = { MYSQL_URL: "mysql://root@127.0.0.1/archiver_demo" };
    expect(cliOverrides(env, demoEnv(env, demoSettings(env)))).toEqual([]);
  });
});

describe("shellQuote", () => {
  it("quotes what the shell would split or expand", () => {
    expect(shellQuote("mysql://root@h:3306/db")).toBe("mysql://root@h:3306/db");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
