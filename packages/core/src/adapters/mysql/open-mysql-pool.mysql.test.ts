import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config";
import { createRuntime } from "../../runtime/create-runtime";
import { testMysqlServerUrl } from "../../testing/test-services";
import { silentLogger } from "../logging/json-logger";
import { openMysqlPool } from "./open-mysql-pool";

// The test server has TLS off (have_ssl DISABLED), so a pool that asks for TLS
// cannot connect: that is how these tests see the TLS settings reach the pool.

describe("openMysqlPool on a real server", () => {
  it("connects as MYSQL_URL says when no TLS or Cloud SQL variable is set", async () => {
    const pool = await openMysqlPool(loadConfig({ MYSQL_URL: testMysqlServerUrl }));
    try {
      const [rows] = await pool.query({ sql: "SELECT 1", rowsAsArray: true });
      expect(rows).toEqual([[1]]);
    } finally {
      await pool.end();
    }
  });

  it("asks for TLS when MYSQL_TLS_REJECT_UNAUTHORIZED=false", async () => {
    const pool = await openMysqlPool(
      loadConfig({ MYSQL_URL: testMysqlServerUrl, MYSQL_TLS_REJECT_UNAUTHORIZED: "false" }),
    );
    try {
      await expect(pool.query({ sql: "SELECT 1" })).rejects.toThrow(/secure connection/i);
    } finally {
      await pool.end();
    }
  });

  it("is the pool the runtime reads the source through", async () => {
    const runtime = await createRuntime(
      loadConfig({ MYSQL_URL: `${testMysqlServerUrl}/mysql`, MYSQL_TLS_REJECT_UNAUTHORIZED: "false" }),
      { logger: silentLogger },
    );
    try {
      await expect(runtime.source.describeTable("user")).rejects.toThrow(/secure connection/i);
    } finally {
      await runtime.close();
    }
  });
});
