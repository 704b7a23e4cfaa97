import { describe, expect, it } from "vitest";
import { loadConfig } from "./load-config";

describe("loadConfig: cleanup", () => {
  it("defaults to chunks of 1000, one task at once, no pause or rest, throttles and rate cap off, two minutes of patience, a 30-day floor", () => {
    expect(loadConfig({}).cleanup).toEqual({
      chunkRows: 1_000,
      chunkTargetMs: 30,
      partitionSliceRows: 1000,
      concurrency: 1,
      pauseMs: 0,
      niceRatio: 0,
      maxReplicaLagSeconds: 0,
      replicaUrls: [],
      replicaHeartbeatTable: undefined,
      maxThreadsRunning: 0,
      maxRedoPercent: 0,
      maxHistoryLength: 0,
      maxWaitMs: 120_000,
      maxRowsPerSecond: 0,
      minRetentionDays: 30,
    });
  });

  it("reads every CLEANUP_ variable, replica URLs split on commas", () => {
    const cleanup = loadConfig({
      CLEANUP_CHUNK_ROWS: "2000",
      CLEANUP_CHUNK_TARGET_MS: "80",
      CLEANUP_PARTITION_SLICE_ROWS: "500",
      CLEANUP_CONCURRENCY: "1",
      CLEANUP_PAUSE_MS: "50",
      CLEANUP_NICE_RATIO: "1.5",
      CLEANUP_MAX_REPLICA_LAG_SECONDS: "5",
      CLEANUP_REPLICA_URLS: " mysql://u:p@replica-1:3306 , mysql://replica-2 ,",
      CLEANUP_MAX_THREADS_RUNNING: "40",
      CLEANUP_MAX_REDO_PERCENT: "60",
      CLEANUP_MAX_HISTORY_LENGTH: "200000",
      CLEANUP_REPLICA_HEARTBEAT_TABLE: "percona.heartbeat",
      CLEANUP_MAX_WAIT_SECONDS: "30",
      CLEANUP_MAX_ROWS_PER_SECOND: "5000",
      MIN_RETENTION_DAYS: "90",
    }).cleanup;
    expect(cleanup).toEqual({
      chunkRows: 2000,
      chunkTargetMs: 80,
      partitionSliceRows: 500,
      concurrency: 1,
      pauseMs: 50,
      niceRatio: 1.5,
      maxReplicaLagSeconds: 5,
      replicaUrls: ["mysql://u:p@replica-1:3306", "mysql://replica-2"],
      replicaHeartbeatTable: "percona.heartbeat",
      maxThreadsRunning: 40,
      maxRedoPercent: 60,
      maxHistoryLength: 200_000,
      maxWaitMs: 30_000,
      maxRowsPerSecond: 5000,
      minRetentionDays: 90,
    });
  });

  it("rejects a lag limit with no replica to measure, and a replica URL that is not mysql://, hiding its password", () => {
    expect(() => loadConfig({ CLEANUP_MAX_REPLICA_LAG_SECONDS: "5" })).toThrow(
      /CLEANUP_MAX_REPLICA_LAG_SECONDS: set, but CLEANUP_REPLICA_URLS names no replica/,
    );
    let message = "";
    try {
      loadConfig({ CLEANUP_REPLICA_URLS: "http://u:secret@replica-1" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      "CLEANUP_REPLICA_URLS: entry 1 of 1 is not a mysql://[user[:password]@]host[:port] URL",
    );
    expect(message).not.toContain("secret");
  });

  it("takes a fractional lag limit only with a heartbeat table, whose name must be database.table", () => {
    const replicas = { CLEANUP_REPLICA_URLS: "mysql://replica-1", CLEANUP_MAX_REPLICA_LAG_SECONDS: "0.5" };
    expect(() => loadConfig(replicas)).toThrow(
      /CLEANUP_MAX_REPLICA_LAG_SECONDS: a fraction of a second needs CLEANUP_REPLICA_HEARTBEAT_TABLE/,
    );
    expect(
      loadConfig({ ...replicas, CLEANUP_REPLICA_HEARTBEAT_TABLE: "percona.heartbeat" }).cleanup,
    ).toMatchObject({ maxReplicaLagSeconds: 0.5, replicaHeartbeatTable: "percona.heartbeat" });
    for (const table of ["heartbeat", "percona.heart beat", "a.b.c", "x;DROP"]) {
      expect(() => loadConfig({ ...replicas, CLEANUP_REPLICA_HEARTBEAT_TABLE: table })).toThrow(
        /CLEANUP_REPLICA_HEARTBEAT_TABLE/,
      );
    }
  });

  it("rejects a chunk size of 0", () => {
    expect(() => loadConfig({ CLEANUP_CHUNK_ROWS: "0" })).toThrow(/CLEANUP_CHUNK_ROWS/);
    expect(() => loadConfig({ CLEANUP_MAX_REDO_PERCENT: "99" })).toThrow(/CLEANUP_MAX_REDO_PERCENT/);
    expect(() => loadConfig({ CLEANUP_MAX_HISTORY_LENGTH: "-1" })).toThrow(/CLEANUP_MAX_HISTORY_LENGTH/);
  });

  it("reads COPY_NICE_RATIO beside the cleanup's, and refuses a negative rest naming the variable", () => {
    expect(loadConfig({ COPY_NICE_RATIO: "0.5" }).copyNiceRatio).toBe(0.5);
    expect(loadConfig({}).copyNiceRatio).toBe(0);
    expect(() => loadConfig({ CLEANUP_NICE_RATIO: "-1" })).toThrow(/CLEANUP_NICE_RATIO/);
    expect(() => loadConfig({ COPY_NICE_RATIO: "fast" })).toThrow(/COPY_NICE_RATIO/);
  });
});
