import type mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrottle } from "../../domain/pacing/throttle";
import {
  type PrivateServers,
  privateMariaDbAvailable,
  startPrivateServers,
} from "../../testing/private-mariadb";
import { silentLogger } from "../logging/json-logger";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlLoadProbe } from "./mysql-load-probe";

// InnoDB's history list length is server-wide, so this file reads it on a private MariaDB of its own
// (packages/core/src/testing/private-mariadb.ts), where no other test's writes or purge move it.

const UPDATES = 300;

describe.skipIf(!privateMariaDbAvailable())("the history-length throttle on a real server", () => {
  let servers: PrivateServers;
  let pool: MysqlPool;
  let reader: mysql.Connection | undefined;

  beforeAll(async () => {
    servers = await startPrivateServers({ replica: false });
    const admin = await servers.primary.connect();
    try {
      await admin.query(`CREATE DATABASE shop;
        CREATE TABLE shop.counters (id INT PRIMARY KEY, hits BIGINT NOT NULL) ENGINE=InnoDB;
        INSERT INTO shop.counters SELECT seq, 0 FROM shop.seq_1_to_100 AS s`);
    } finally {
      await admin.end();
    }
    pool = createMysqlPool({ url: servers.primary.url("shop"), password: undefined });
  }, 120_000);

  afterAll(async () => {
    await reader?.end().catch(() => {});
    await pool?.end();
    await servers?.stop();
  }, 60_000);

  it("rises while a long read transaction keeps the purge back, holds the throttle, and lets go once it ends", async () => {
    const probe = createMysqlLoadProbe({ primary: pool, replicaUrls: [] });
    const before = await probe.historyLength();
    expect(before).toBeTypeOf("number");

    // A report's long read: its snapshot must still see every row as it was, so no undo written after it
    // may be purged.
    reader = await servers.primary.connect("shop");
    await reader.query("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    await reader.query("SELECT SUM(hits) FROM counters");
    for (let i = 0; i < UPDATES; i++) {
      await pool.query({ sql: `UPDATE counters SET hits = hits + 1 WHERE id = ${(i % 100) + 1}` });
    }
    const during = (await probe.historyLength()) ?? 0;
    expect(during).toBeGreaterThanOrEqual((before ?? 0) + UPDATES * 0.9);

    const limit = (before ?? 0) + 50;
    const seen: number[] = [];
    let ended = false;
    const throttle = createThrottle({
      probe: {
        ...probe,
        historyLength: async () => {
          const length = (await probe.historyLength()) ?? 0;
          seen.push(length);
          return length;
        },
      },
      settings: {
        pauseMs: 0,
        maxReplicaLagSeconds: 0,
        maxThreadsRunning: 0,
        maxRedoPercent: 0,
        maxHistoryLength: limit,
        maxWaitMs: 30_000,
      },
      logger: silentLogger,
      context: {},
      sleep: async () => {
        // Held for two polls while the snapshot is open; then the report ends and the purge catches up.
        if (seen.length === 2 && !ended) {
          await reader?.query("COMMIT");
          ended = true;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
    });
    const wait = await throttle.beforeChunk(true);

    expect(ended).toBe(true);
    expect(seen.slice(0, 2).every((length) => length > limit)).toBe(true);
    expect(seen.at(-1)).toBeLessThanOrEqual(limit);
    expect(wait.byReason.historyLength).toBeGreaterThanOrEqual(2000);
    expect(wait).toEqual({
      waitedMs: wait.byReason.historyLength,
      byReason: { historyLength: wait.waitedMs },
    });
    await probe.close();
  });
});
