import { describe, expect, it } from "vitest";
import { demoEnv } from "./demo-env";

describe("demoEnv", () => {
  it("keeps the user's server and credentials but always uses the demo's database, warehouse and queue", () => {
    const env = demoEnv({
      MYSQL_URL: "mysql://app:secret@db.internal:3307/production",
      DUCKDB_PATH: "/var/lib/archive/warehouse.duckdb",
      LOCAL_QUEUE_PREFIX: "archiver",
      WAREHOUSE: "bigquery",
      QUEUE: "cloud-tasks",
      REDIS_URL: "redis://cache:6379/2",
    });
    expect(env).toMatchObject({
      MYSQL_URL: "mysql://app:secret@db.internal:3307/archiver_demo",
      DUCKDB_PATH: ".data/demo-warehouse.duckdb",
      LOCAL_QUEUE_PREFIX: "archiver-demo",
      WAREHOUSE: "duckdb",
      QUEUE: "local",
      REDIS_URL: "redis://cache:6379/2",
    });
  });

  it("defaults to root on localhost", () => {
    expect(demoEnv({}).MYSQL_URL).toBe("mysql://root@127.0.0.1:3306/archiver_demo");
  });
});
