import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import { testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { copiedDaysKey, createRedisMigrationLedger, migratedDaysKey } from "./redis-migration-ledger";

const record = (day: string, rows = 3): CopiedDayRecord => ({
  day,
  destination: "archive.orders",
  filterColumn: "created_at",
  figures: { rows, key: { column: "id", count: rows, sum: "18446744073709551615", min: "1", max: "9" } },
  zeroDates: 0,
  bytes: 120,
  durationMs: 15,
  copiedAt: "2024-05-01T10:00:00.000Z",
});

describe("createRedisMigrationLedger", () => {
  let redis: Redis;
  const used: string[] = [];
  const table = () => {
    const name = uniqueName("ledger");
    used.push(migratedDaysKey(name), copiedDaysKey(name));
    return name;
  };

  beforeAll(() => {
    redis = createRedisClient({ url: testRedisUrl, auth: undefined });
  });
  afterAll(async () => {
    if (used.length > 0) await redis.del(...used);
    await redis.quit();
  });

  it("records a day in mig_<table> together with its copy record", async () => {
    const ledger = createRedisMigrationLedger(redis);
    const name = table();
    await ledger.recordCopiedDay(name, record("2020-01-31"));

    expect(await redis.smembers(`mig_${name}`)).toEqual(["2020-01-31"]);
    expect(await ledger.isMigrated(name, "2020-01-31")).toBe(true);
    expect(await ledger.isMigrated(name, "2020-02-01")).toBe(false);
    expect(await ledger.copiedDays(name, ["2020-02-01", "2020-01-31"])).toEqual(
      new Map([["2020-01-31", record("2020-01-31")]]),
    );
    expect(await ledger.copiedDays(name, [])).toEqual(new Map());
    expect(await ledger.copiedDay(name, "2020-01-31")).toEqual(record("2020-01-31"));
    expect(JSON.parse((await redis.hget(`archiver:copied:${name}`, "2020-01-31")) ?? "null")).toEqual(
      record("2020-01-31"),
    );
  });

  it("returns migrated days sorted, whatever the order they were recorded in", async () => {
    const ledger = createRedisMigrationLedger(redis);
    const name = table();
    for (const day of ["2021-03-01", "2019-12-31", "2021-02-28", "2020-02-29"]) {
      await ledger.recordCopiedDay(name, record(day));
    }
    expect(await ledger.migratedDays(name)).toEqual(["2019-12-31", "2020-02-29", "2021-02-28", "2021-03-01"]);
  });

  it("records a day again by replacing its record, keeping one member", async () => {
    const ledger = createRedisMigrationLedger(redis);
    const name = table();
    await ledger.recordCopiedDay(name, record("2020-05-05", 3));
    await ledger.recordCopiedDay(name, record("2020-05-05", 4));
    expect(await ledger.migratedDays(name)).toEqual(["2020-05-05"]);
    expect((await ledger.copiedDay(name, "2020-05-05"))?.figures.rows).toBe(4);
  });

  it("answers undefined and an empty list for what was never recorded", async () => {
    const ledger = createRedisMigrationLedger(redis);
    const name = table();
    expect(await ledger.copiedDay(name, "2020-01-01")).toBeUndefined();
    expect(await ledger.migratedDays(name)).toEqual([]);
    expect(await ledger.isMigrated(name, "2020-01-01")).toBe(false);
  });

  it("never adds the day to the set when its record cannot be written", async () => {
    const ledger = createRedisMigrationLedger(redis);
    const name = table();
    // A hash key holding a string makes HSET fail at run time, the case MULTI/EXEC would not roll back.
    await redis.set(copiedDaysKey(name), "not a hash");

    await expect(ledger.recordCopiedDay(name, record("2020-01-31"))).rejects.toThrow(/WRONGTYPE/);
    expect(await redis.exists(migratedDaysKey(name))).toBe(0);
  });

  it("never shows a reader a day without its record", async () => {
    const ledger = createRedisMigrationLedger(redis);
    const reader = createRedisClient({ url: testRedisUrl, auth: undefined });
    const name = table();
    const days = Array.from({ length: 300 }, (_, i) =>
      new Date(Date.UTC(2010, 0, 1 + i)).toISOString().slice(0, 10),
    );
    let writing = true;
    let orphans = 0;
    let looks = 0;
    const watch = (async () => {
      while (writing) {
        const snapshot = await reader
          .multi()
          .smembers(migratedDaysKey(name))
          .hkeys(copiedDaysKey(name))
          .exec();
        const members = (snapshot?.[0]?.[1] ?? []) as string[];
        const recorded = new Set((snapshot?.[1]?.[1] ?? []) as string[]);
        orphans += members.filter((day) => !recorded.has(day)).length;
        looks++;
      }
    })();
    // One write at a time, so the reader's snapshots fall between the steps of each write.
    for (const day of days) await ledger.recordCopiedDay(name, record(day));
    writing = false;
    await watch;
    await reader.quit();

    expect(looks).toBeGreaterThan(0);
    expect(orphans).toBe(0);
    expect(await ledger.migratedDays(name)).toHaveLength(300);
  });

  it("lists the tables that have a mig_<table> set, and only sets", async () => {
    const ledger = createRedisMigrationLedger(redis);
    const [a, b, notASet, other] = [table(), table(), table(), uniqueName("other")];
    used.push(`archiver:copied:x_${other}`);
    await ledger.recordCopiedDay(a, record("2020-01-01"));
    await ledger.recordCopiedDay(b, record("2020-01-01"));
    await redis.set(migratedDaysKey(notASet), "a string, not a set");
    await redis.sadd(`archiver:copied:x_${other}`, "2020-01-01");

    const tables = await ledger.tables();
    expect(tables).toEqual(expect.arrayContaining([a, b]));
    expect(tables).not.toContain(notASet);
    expect(tables.some((t) => t.includes(other))).toBe(false);
    expect(tables).toEqual([...tables].sort());
  });

  it("fails with TransientError within seconds when Redis is down", async () => {
    const down = createRedisClient({ url: "redis://127.0.0.1:1", auth: undefined });
    const ledger = createRedisMigrationLedger(down);
    const started = Date.now();
    await expect(ledger.migratedDays("orders")).rejects.toBeInstanceOf(TransientError);
    await expect(ledger.recordCopiedDay("orders", record("2020-01-01"))).rejects.toBeInstanceOf(
      TransientError,
    );
    expect(Date.now() - started).toBeLessThan(6_000);
    down.disconnect();
  });
});
