import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupKeys } from "../../../adapters/redis/redis-cleanup-state";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask, failAfter } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

// How the throttle holds chunks back, and a day it gave up on: clean-day-throttle.mysql.test.ts.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("cleanDay resuming after a kill", () => {
  it("a kill between chunks, then a retry, deletes exactly the migrated rows", async () => {
    const table = await fx.keyedTable(["2024-04-01", "2024-04-02"], 10);
    await fx.copy(table, "2024-04-01");
    const untouched = await fx.idsOn(table, "2024-04-02");
    // Dies after its third chunk committed, before recording it.
    const deleter = failAfter(fx.deleter, 3);
    const settings = { chunkRows: 2 };
    await expect(cleanDay(fx.deps({ deleter, settings }), cleanTask(table, "2024-04-01"))).rejects.toThrow(
      "killed",
    );
    expect(await fx.idsOn(table, "2024-04-01")).toHaveLength(4);
    expect(await fx.deps().state.read({ table, day: "2024-04-01" })).toMatchObject({
      status: "deleting",
      chunksDone: 2,
    });

    // The day now holds 4 of its 10 copied rows: a retry that verified again would refuse it.
    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-04-01"));

    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 4 + 4, rowsFoundGone: 2 });
    expect(await fx.idsOn(table, "2024-04-01")).toEqual([]);
    expect(await fx.idsOn(table, "2024-04-02")).toEqual(untouched);
    expect(await fx.deps().state.cleanedDays(table)).toEqual(["2024-04-01"]);
  });
});

describe("cleanDay and the lease", () => {
  it("deletes nothing more once another task holds the day's lease, even after a long pause", async () => {
    const table = await fx.keyedTable(["2024-04-10"], 4);
    await fx.copy(table, "2024-04-10");
    const lease = cleanupKeys(fx.prefix, table, "2024-04-10").lease;
    const deps = fx.deps({
      settings: { chunkRows: 2, pauseMs: 60_000 },
      // The pause outlasts the lease: it expires and a second task claims the day.
      sleep: async () => {
        await fx.redis.del(lease);
        expect(await fx.deps().state.claim({ table, day: "2024-04-10" }, "second-task", 60_000)).toBe(true);
      },
    });

    await expect(cleanDay(deps, cleanTask(table, "2024-04-10"))).rejects.toThrow(/lost the cleanup lease/);
    expect(await fx.idsOn(table, "2024-04-10")).toHaveLength(2);

    await fx.redis.del(lease);
    const report = await cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-04-10"));
    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 4 });
  });
});

describe("cleanDay on a table without a primary key", () => {
  it("verifies rows and content, deletes in time chunks, and finds a chunk that committed before a kill gone", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, id BIGINT NOT NULL, KEY (created_at))`,
    );
    for (let i = 1; i <= 5; i++) {
      await fx.query(
        `INSERT INTO \`${table}\` VALUES ('2024-06-01 0${i}:00:00', ?), ('2024-06-02 0${i}:00:00', ?)`,
        [i, 100 + i],
      );
    }
    await fx.query(
      `INSERT INTO \`${table}\` VALUES ('2024-05-31 23:59:59', 0), ('2024-06-02 00:00:00', 200)`,
    );
    await fx.copy(table, "2024-06-01");
    const deleter = failAfter(fx.deleter, 1);
    const settings = { chunkRows: 2 };
    await expect(cleanDay(fx.deps({ deleter, settings }), cleanTask(table, "2024-06-01"))).rejects.toThrow(
      "killed",
    );
    // The first chunk committed, but the task died before recording it.
    expect(await fx.deps().state.read({ table, day: "2024-06-01" })).toMatchObject({
      rowsDeleted: 0,
      chunksDone: 0,
    });

    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-06-01"));

    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 3, rowsFoundGone: 2 });
    const left = await fx.query<{ k: string }>(`SELECT CAST(id AS CHAR) AS k FROM \`${table}\` ORDER BY id`);
    expect(left.map((row) => row.k)).toEqual(["0", "101", "102", "103", "104", "105", "200"]);
  });

  it("resuming stops at a chunk whose rows changed while it was away, and deletes none of them", async () => {
    const table = uniqueName("events");
    await fx.query(`CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, note TEXT, KEY (created_at))`);
    for (let i = 1; i <= 4; i++)
      await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-06-03 0${i}:00:00', 'x')`);
    await fx.copy(table, "2024-06-03");
    const settings = { chunkRows: 2 };
    await expect(
      cleanDay(
        fx.deps({ deleter: failAfter(fx.deleter, 1, "before"), settings }),
        cleanTask(table, "2024-06-03"),
      ),
    ).rejects.toThrow("killed");
    // A late row inside the range of the second chunk [03:00, 04:00].
    await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-06-03 04:00:00', 'late')`);

    await expect(cleanDay(fx.deps({ settings }), cleanTask(table, "2024-06-03"))).rejects.toThrow(
      /rows changed since verification: planned 2 rows .* found 3/,
    );
    expect(await fx.query(`SELECT note FROM \`${table}\` ORDER BY created_at, note`)).toEqual([
      { note: "x" },
      { note: "late" },
      { note: "x" },
    ]);
  });

  it("resuming refuses a chunk whose rows were updated while it was away", async () => {
    const table = uniqueName("events");
    await fx.query(`CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, note TEXT, KEY (created_at))`);
    for (let i = 1; i <= 4; i++)
      await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-06-04 0${i}:00:00', 'x')`);
    await fx.copy(table, "2024-06-04");
    const settings = { chunkRows: 2 };
    await expect(
      cleanDay(
        fx.deps({ deleter: failAfter(fx.deleter, 2, "before"), settings }),
        cleanTask(table, "2024-06-04"),
      ),
    ).rejects.toThrow("killed");
    await fx.query(`UPDATE \`${table}\` SET note = 'refunded' WHERE created_at = '2024-06-04 04:00:00'`);

    await expect(cleanDay(fx.deps({ settings }), cleanTask(table, "2024-06-04"))).rejects.toThrow(
      /rows changed since verification: planned 2 rows .* found 2/,
    );
    expect(await fx.query(`SELECT note FROM \`${table}\` ORDER BY created_at`)).toEqual([
      { note: "x" },
      { note: "refunded" },
    ]);
  });

  it("a retry after the throttle gave up before any delete checks each chunk again, and a late row stops it", async () => {
    const table = uniqueName("events");
    await fx.query(`CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, note TEXT, KEY (created_at))`);
    for (let i = 1; i <= 4; i++)
      await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-06-05 0${i}:00:00', 'x')`);
    await fx.copy(table, "2024-06-05");
    fx.probe.lags = [{ replica: "replica-1:3306", seconds: null, reason: "replication not running" }];
    // Chunks of 3: a day of several chunks is planned and recorded before its first delete.
    const throttled = {
      maxReplicaLagSeconds: 10,
      replicaUrls: ["mysql://replica-1"],
      maxWaitMs: 2000,
      chunkRows: 3,
    };
    try {
      await expect(
        cleanDay(fx.deps({ settings: throttled }), cleanTask(table, "2024-06-05")),
      ).rejects.toThrow(/lag unknown/);
    } finally {
      fx.probe.lags = [];
    }
    expect(await fx.deps().state.read({ table, day: "2024-06-05" })).toMatchObject({
      status: "deleting",
      rowsDeleted: 0,
      chunksDone: 0,
    });
    await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-06-05 03:00:00', 'late')`);

    await expect(
      cleanDay(fx.deps({ settings: { chunkRows: 3 } }), cleanTask(table, "2024-06-05")),
    ).rejects.toThrow(/rows changed since verification/);
    expect(await fx.query(`SELECT * FROM \`${table}\``)).toHaveLength(5);
  });

  it("a resumed task naming another filter column deletes nothing", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, note TEXT,
       KEY (created_at), KEY (updated_at))`,
    );
    // Four copied rows created on 06-07; two never-copied rows updated on 06-07.
    for (let i = 1; i <= 4; i++)
      await fx.query(
        `INSERT INTO \`${table}\` VALUES ('2024-06-07 0${i}:00:00', '2024-06-20 00:00:00', 'copied')`,
      );
    for (let i = 1; i <= 2; i++)
      await fx.query(
        `INSERT INTO \`${table}\` VALUES ('2024-05-01 00:00:00', '2024-06-07 0${i}:00:00', 'kept')`,
      );
    await fx.copy(table, "2024-06-07");
    const settings = { chunkRows: 2 };
    await expect(
      cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 1), settings }), cleanTask(table, "2024-06-07")),
    ).rejects.toThrow("killed");

    const other = { ...cleanTask(table, "2024-06-07"), filterColumn: "updated_at" };
    await expect(cleanDay(fx.deps({ settings }), other)).rejects.toThrow(/copied by column "created_at"/);
    expect(await fx.query(`SELECT * FROM \`${table}\` WHERE note = 'kept'`)).toHaveLength(2);
    expect(await fx.query(`SELECT * FROM \`${table}\``)).toHaveLength(4);
  });
});

describe("throttle", () => {
  it("gives up after the longest wait with a TransientError, and the retry resumes", async () => {
    const table = await fx.keyedTable(["2024-07-02"], 4);
    await fx.copy(table, "2024-07-02");
    fx.probe.lags = [{ replica: "replica-1:3306", seconds: null, reason: "replication not running" }];
    const settings = {
      maxReplicaLagSeconds: 10,
      replicaUrls: ["mysql://replica-1"],
      maxWaitMs: 5000,
      chunkRows: 3,
    };

    await expect(cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-02"))).rejects.toThrow(
      /lag unknown/,
    );
    expect(await fx.idsOn(table, "2024-07-02")).toHaveLength(4);

    fx.probe.lags = [];
    expect(await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-02"))).toMatchObject({
      resumed: true,
    });
    expect(await fx.idsOn(table, "2024-07-02")).toEqual([]);
  });
});
