import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLagForecast } from "../../domain/pacing/lag-forecast";
import { createThrottle } from "../../domain/pacing/throttle";
import type { LoadProbe } from "../../ports/load-probe";
import {
  type PrivateServers,
  privateMariaDbAvailable,
  startPrivateServers,
  waitForReplica,
} from "../../testing/private-mariadb";
import { silentLogger } from "../logging/json-logger";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlLoadProbe } from "./mysql-load-probe";

// The replica-lag throttle against a real replica: a private MariaDB primary and replica of this file's own
// (packages/core/src/testing/private-mariadb.ts), ended by PID in afterAll. The primary writes a heartbeat every
// 100 ms in UTC, as `pt-heartbeat --update --utc --interval 0.1` does, in pt-heartbeat's own table layout.

const available = privateMariaDbAvailable();
const HEARTBEAT = "percona.heartbeat";
const HEARTBEAT_EVERY_MS = 100;

let servers: PrivateServers;
let primaryPool: MysqlPool;
const probes: LoadProbe[] = [];
let heartbeat: { stop(): Promise<void> } | undefined;

/** pt-heartbeat --utc's ts: UTC, ISO 8601 with a T and microseconds. */
const UTC_NOW = "DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%f')";

/** The heartbeat writer on the primary, every 100 ms until stopped. */
async function startHeartbeat(of: PrivateServers) {
  const writer = await of.primary.connect();
  let running = true;
  const loop = (async () => {
    while (running) {
      await writer.query(`UPDATE ${HEARTBEAT} SET ts = ${UTC_NOW} WHERE server_id = 1`);
      await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_EVERY_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop.catch(() => {});
      await writer.end();
    },
  };
}

/** A probe of the private replica, reading its status, or the heartbeat table when given. */
function probeOf(heartbeatTable?: string): LoadProbe {
  const probe = createMysqlLoadProbe({
    primary: primaryPool,
    replicaUrls: [servers.replica?.url() ?? ""],
    heartbeatTable,
  });
  probes.push(probe);
  return probe;
}

/** Runs `statements` on the replica. */
async function onReplica(...statements: string[]): Promise<void> {
  const connection = await servers.replica?.connect();
  try {
    for (const statement of statements) await connection?.query(statement);
  } finally {
    await connection?.end();
  }
}

/** Rows written on the primary in small transactions, so the replica has something to fall behind on. */
async function writeOnPrimary(transactions: number): Promise<void> {
  for (let i = 0; i < transactions; i++) {
    await primaryPool.query({ sql: "INSERT INTO events (note) VALUES (REPEAT('x', 64))" });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!available)("replica lag from a real replica", () => {
  beforeAll(async () => {
    servers = await startPrivateServers({ replica: true });
    const admin = await servers.primary.connect();
    try {
      await admin.query(`CREATE DATABASE percona; CREATE DATABASE shop;
        CREATE TABLE ${HEARTBEAT} (ts varchar(26) NOT NULL, server_id int unsigned NOT NULL PRIMARY KEY,
          file varchar(255), position bigint unsigned, relay_master_log_file varchar(255),
          exec_master_log_pos bigint unsigned) ENGINE=InnoDB;
        INSERT INTO ${HEARTBEAT} (ts, server_id) VALUES (${UTC_NOW}, 1);
        CREATE TABLE shop.events (id BIGINT PRIMARY KEY AUTO_INCREMENT, note VARCHAR(64)) ENGINE=InnoDB`);
    } finally {
      await admin.end();
    }
    heartbeat = await startHeartbeat(servers);
    await waitForReplica(servers);
    primaryPool = createMysqlPool({ url: servers.primary.url("shop"), password: undefined });
  }, 120_000);

  afterAll(async () => {
    await heartbeat?.stop();
    await Promise.allSettled([...probes.map((probe) => probe.close()), primaryPool?.end()]);
    await servers?.stop();
  }, 60_000);

  it("reads Seconds_Behind_Master and the heartbeat's sub-second age", async () => {
    const [status] = await probeOf().replicaLags();
    expect(status).toMatchObject({ replica: `127.0.0.1:${servers.replica?.port}`, seconds: 0 });
    const [beat] = await probeOf(HEARTBEAT).replicaLags();
    expect(beat?.seconds).toBeTypeOf("number");
    // A heartbeat every 100 ms on a replica that keeps up: its age stays well under half a second.
    expect(beat?.seconds).toBeLessThan(0.5);
    expect(beat?.seconds).toBeGreaterThanOrEqual(0);
  });

  it("sees the heartbeat age rise past a sub-second limit while the SQL thread is stopped, and the throttle hold until it catches up", async () => {
    const probe = probeOf(HEARTBEAT);
    await onReplica("STOP SLAVE SQL_THREAD");
    let restarted = false;
    try {
      await writeOnPrimary(50);
      await sleep(800);
      // A replica that runs pt-heartbeat --update itself has a row of its own, always fresh: not the lag.
      await onReplica(
        `INSERT INTO ${HEARTBEAT} (ts, server_id) VALUES (${UTC_NOW}, 2) ON DUPLICATE KEY UPDATE ts = VALUES(ts)`,
      );
      const [stopped] = await probe.replicaLags();
      expect(stopped?.seconds).toBeGreaterThan(0.5);

      const seen: (number | null)[] = [];
      const throttle = createThrottle({
        probe: { ...probe, replicaLags: async () => recorded(await probe.replicaLags(), seen) },
        settings: throttleSettings(0.5),
        logger: silentLogger,
        context: {},
        sleep: async () => {
          // Held for two polls with the SQL thread stopped, then replication resumes.
          if (seen.length === 2) {
            await onReplica("START SLAVE SQL_THREAD");
            restarted = true;
          }
          await sleep(100);
        },
      });
      const wait = await throttle.beforeChunk(true);
      expect(restarted).toBe(true);
      expect(seen.slice(0, 2).every((seconds) => seconds !== null && seconds > 0.5)).toBe(true);
      expect(seen.at(-1)).toBeLessThanOrEqual(0.5);
      expect(wait.byReason.replicaLag).toBeGreaterThanOrEqual(2000);
      expect(wait.waitedMs).toBe(wait.byReason.replicaLag);
    } finally {
      if (!restarted) await onReplica("START SLAVE SQL_THREAD");
    }
  });

  it("holds chunks back before the lag reaches the limit while the replica falls behind, from where the lag is heading", async () => {
    const probe = probeOf(HEARTBEAT);
    const held: string[] = [];
    let heldAt: number | null = null;
    let restarted = false;
    await onReplica("STOP SLAVE SQL_THREAD");
    try {
      const throttle = createThrottle({
        probe: {
          ...probe,
          replicaLags: async () => {
            const lags = await probe.replicaLags();
            if (held.length === 0) heldAt = lags[0]?.seconds ?? null;
            return lags;
          },
        },
        settings: throttleSettings(2),
        memory: { lagForecast: createLagForecast() },
        logger: { ...silentLogger, warn: (_message, fields) => held.push(String(fields?.reason)) },
        context: {},
        sleep: async (ms) => {
          // Held: the replica applies again, and the throttle lets go once it has caught up.
          if (held.length > 0 && !restarted) {
            await onReplica("START SLAVE SQL_THREAD");
            restarted = true;
          }
          await sleep(ms);
        },
      });
      // Chunks of 150 ms on the primary while the replica applies nothing: its lag rises a second a second.
      for (let chunk = 0; held.length === 0 && chunk < 40; chunk += 1) {
        await throttle.beforeChunk(chunk === 0);
        if (held.length > 0) break;
        await writeOnPrimary(5);
        await sleep(150);
        throttle.afterChunk(150);
      }
      expect(held[0]).toMatch(/lags [\d.]+ s and is heading for [\d.]+ s \(limit 2 s\)/);
      // It stopped at a quarter of the limit or soon after, not once the lag read 2 s.
      expect(heldAt).toBeGreaterThanOrEqual(0.5);
      expect(heldAt).toBeLessThan(1.2);
      expect(restarted).toBe(true);
    } finally {
      if (!restarted) await onReplica("START SLAVE SQL_THREAD");
    }
    await waitForReplica(servers);
  });

  it("holds on Seconds_Behind_Master (unknown while the SQL thread is stopped) and lets go once it catches up", async () => {
    const probe = probeOf();
    await onReplica("STOP SLAVE SQL_THREAD");
    let restarted = false;
    try {
      await writeOnPrimary(20);
      const [stopped] = await probe.replicaLags();
      expect(stopped).toMatchObject({ seconds: null, reason: "replication not running (IO Yes, SQL No)" });

      const reasons: string[] = [];
      const throttle = createThrottle({
        probe,
        settings: throttleSettings(1),
        logger: { ...silentLogger, warn: (_message, fields) => reasons.push(String(fields?.reason)) },
        context: {},
        sleep: async () => {
          if (!restarted) {
            await onReplica("START SLAVE SQL_THREAD");
            restarted = true;
          }
          await sleep(100);
        },
      });
      const wait = await throttle.beforeChunk(true);
      expect(restarted).toBe(true);
      expect(reasons[0]).toMatch(/lag unknown \(replication not running \(IO Yes, SQL No\)\)/);
      expect(wait.byReason.replicaLag).toBeGreaterThanOrEqual(1000);
      await waitForReplica(servers);
      expect((await probe.replicaLags())[0]?.seconds).toBe(0);
    } finally {
      if (!restarted) await onReplica("START SLAVE SQL_THREAD");
    }
  });

  it("reads the replica's own redo log fill, and proves the account can, for the redo throttle", async () => {
    const probe = probeOf();
    const [redo] = await probe.replicaRedoFills();
    const connection = await servers.replica?.connect();
    if (!connection) throw new Error("no replica");
    const [[size]] = (await connection.query("SELECT @@innodb_log_file_size AS bytes")) as unknown as [
      [{ bytes: number | string }],
    ];
    await connection.end();
    expect(redo?.replica).toBe(`127.0.0.1:${servers.replica?.port}`);
    expect(redo?.fill?.capacityBytes).toBe(Number(size.bytes));
    expect(redo?.fill?.percent).toBeGreaterThanOrEqual(0);
    expect(redo?.fill?.percent).toBeLessThan(100);
    const checks = await probe.accessChecks({ replicaLag: false, redo: true, historyLength: false });
    expect(checks.map((check) => [check.need, check.ok])).toEqual([
      ["read InnoDB's checkpoint age", true],
      [`read InnoDB's checkpoint age on replica 127.0.0.1:${servers.replica?.port}`, true],
    ]);
  });

  it("takes a missing heartbeat table as unknown lag", async () => {
    const [lag] = await probeOf("percona.no_such_heartbeat").replicaLags();
    expect(lag).toMatchObject({
      seconds: null,
      reason: "no heartbeat table percona.no_such_heartbeat on the replica",
    });
  });
});

function recorded<T extends readonly { seconds: number | null }[]>(lags: T, seen: (number | null)[]): T {
  seen.push(lags[0]?.seconds ?? null);
  return lags;
}

function throttleSettings(maxReplicaLagSeconds: number) {
  return {
    pauseMs: 0,
    maxReplicaLagSeconds,
    maxThreadsRunning: 0,
    maxRedoPercent: 0,
    maxHistoryLength: 0,
    maxWaitMs: 20_000,
  };
}
