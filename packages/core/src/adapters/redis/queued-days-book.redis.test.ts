import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CopyDayTask } from "../../model/task";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { createQueuedDaysBook, type QueuedDaysBookOptions } from "./queued-days-book";

const copy = (day: string, table = "orders"): CopyDayTask => ({
  kind: "copy",
  table,
  destination: `archive.${table}`,
  filterColumn: "created_at",
  day,
});
const sorted = async (days: Promise<Set<string>>) => [...(await days)].sort();

let redis: Redis;
beforeAll(() => {
  redis = createRedisClient({ url: testRedisUrl, auth: undefined });
});
afterAll(async () => {
  await redis.quit();
});

describe("createQueuedDaysBook", () => {
  let prefix: string;
  let now: number;
  const key = (kind: string, table: string) => `${prefix}:book:${kind}:${table}`;
  /** Jobs laid out as BullMQ lays them out: a hash per job, finished ids in two sorted sets. */
  const jobs = () => ({
    keys: { job: `${prefix}:job:`, failed: `${prefix}:failed`, completed: `${prefix}:completed` },
    idPrefix: (kind: string, table: string) => `${kind}|${table}|`,
  });
  const liveJob = (day: string) => redis.hset(`${prefix}:job:copy|orders|${day}`, "name", "copy");
  const open = (extra: Partial<QueuedDaysBookOptions> = {}) =>
    createQueuedDaysBook(redis, { key, clock: () => now, ...extra });

  beforeEach(() => {
    prefix = uniqueName("qdb");
    now = 1_700_000_000_000;
  });
  afterEach(async () => {
    await deleteKeysWithPrefix(redis, prefix);
  });

  it("keeps days per kind and table, scored by their enqueue time", async () => {
    const book = open();
    await book.add([copy("2024-01-01"), copy("2024-01-02"), copy("2024-01-01", "events")]);
    now += 5;
    await book.add([copy("2024-01-02")]);
    expect(await sorted(book.days("copy", "orders"))).toEqual(["2024-01-01", "2024-01-02"]);
    expect([...(await book.days("copy", "events"))]).toEqual(["2024-01-01"]);
    expect((await book.days("clean", "orders")).size).toBe(0);
    expect(await redis.zscore(key("copy", "orders"), "2024-01-02")).toBe(String(now));
  });

  it("drops entries older than the horizon on read, and keeps all under an unlimited one", async () => {
    let horizon = 1_000;
    const book = open({ horizonMs: async () => horizon });
    await book.add([copy("2024-01-01")]);
    now += 500;
    await book.add([copy("2024-01-02")]);
    now += 500;
    expect(await sorted(book.days("copy", "orders"))).toEqual(["2024-01-01", "2024-01-02"]);
    now += 1;
    horizon = Number.POSITIVE_INFINITY;
    expect(await sorted(book.days("copy", "orders"))).toEqual(["2024-01-01", "2024-01-02"]);
    horizon = 1_000;
    expect(await sorted(book.days("copy", "orders"))).toEqual(["2024-01-02"]);
    expect(await redis.zrange(key("copy", "orders"), "0", "-1")).toEqual(["2024-01-02"]);
  });

  it("settles a day outright when it cannot see the jobs", async () => {
    const book = open();
    await book.add([copy("2024-01-01"), copy("2024-01-02")]);
    await book.settle([copy("2024-01-01"), copy("2024-01-05")]);
    expect([...(await book.days("copy", "orders"))]).toEqual(["2024-01-02"]);
  });

  it("with the jobs known, counts a day only while its job is live, and settles only finished ones", async () => {
    const book = open({ jobs: jobs() });
    await book.add([copy("2024-01-01"), copy("2024-01-02"), copy("2024-01-03")]);
    await liveJob("2024-01-01");
    await liveJob("2024-01-02");
    // A job that failed for good stays as a hash in the failed set.
    await liveJob("2024-01-03");
    await redis.zadd(`${prefix}:failed`, 1, "copy|orders|2024-01-03");

    expect(await sorted(book.days("copy", "orders"))).toEqual(["2024-01-01", "2024-01-02"]);
    expect(await redis.zscore(key("copy", "orders"), "2024-01-03")).toBeNull();

    await redis.del(`${prefix}:job:copy|orders|2024-01-01`);
    await book.settle([copy("2024-01-01"), copy("2024-01-02")]);
    expect(await redis.zrange(key("copy", "orders"), "0", "-1")).toEqual(["2024-01-02"]);
  });

  it("reads, extends and settles a book kept as a plain set of days, turning it into a sorted set", async () => {
    // How a local queue kept its book before entries carried an enqueue time.
    const legacy = key("copy", "orders");
    const days = Array.from({ length: 1_200 }, (_, i) => `day-${String(i).padStart(4, "0")}`);
    await redis.sadd(legacy, ...days);
    const book = open();
    expect((await book.days("copy", "orders")).size).toBe(1_200);
    expect(await redis.type(legacy)).toBe("zset");
    expect(await redis.zscore(legacy, "day-0000")).toBe(String(now));

    await redis.del(legacy);
    await redis.sadd(legacy, "2024-01-01", "2024-01-02");
    await book.add([copy("2024-01-03")]);
    expect(await redis.zrange(legacy, "0", "-1")).toEqual(["2024-01-01", "2024-01-02", "2024-01-03"]);

    await redis.del(legacy);
    await redis.sadd(legacy, "2024-01-01", "2024-01-02");
    await book.settle([copy("2024-01-01")]);
    expect(await redis.zrange(legacy, "0", "-1")).toEqual(["2024-01-02"]);
  });

  it("checks the jobs of a book kept as a plain set of days", async () => {
    const book = open({ jobs: jobs() });
    await redis.sadd(key("copy", "orders"), "2024-01-01", "2024-01-02");
    await liveJob("2024-01-02");
    expect([...(await book.days("copy", "orders"))]).toEqual(["2024-01-02"]);
    expect(await redis.zrange(key("copy", "orders"), "0", "-1")).toEqual(["2024-01-02"]);
  });
});
