import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarDay } from "../../../model/calendar-day";
import type { CopiedDayRecord } from "../../../model/copied-day-record";
import type { DayChunk } from "../../../model/day-chunks";
import type { CleanupState } from "../../../ports/cleanup-state";
import type { DayDeleter } from "../../../ports/day-deleter";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask, failAfter, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

// A day deleted by the chunks its copy recorded (CopiedDayRecord.chunks): no pass reads or hashes the
// day before its deletes; each chunk is verified under its own lock against its recorded rows and
// fingerprint. Each test below tries to make that unsafe. Real MariaDB, Redis and DuckDB.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

const DAY: CalendarDay = "2024-05-02";
/** 3,500 rows: recorded chunks of 1,000, 1,000, 1,000 and 500 rows. */
const ROWS = 3_500;
const settings = { chunkRows: 1_000 };

/**
 * A keyed table holding ROWS rows on DAY, their keys scattered over time (so
 * the copy reads them out of key order) with gaps between them, and rows on
 * the days around it; copied with the real copy task. Returns its name and
 * the day's recorded chunks.
 */
async function copiedTable(): Promise<{ table: string; chunks: readonly DayChunk[] }> {
  const table = uniqueName("chunked");
  await fx.query(
    `CREATE TABLE \`${table}\` (
       id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
       created_at DATETIME(6) NOT NULL,
       note VARCHAR(40) NULL,
       KEY (created_at)
     )`,
  );
  await fx.query(
    `INSERT INTO \`${table}\` SELECT 10 * ((seq * 7919) MOD 1000003) + 100, ? + INTERVAL seq SECOND,
       CONCAT('row ', seq) FROM seq_0_to_${ROWS - 1}`,
    [DAY],
  );
  await fx.query(
    `INSERT INTO \`${table}\` VALUES (1, ? - INTERVAL 1 SECOND, 'before'), (2, ? + INTERVAL 1 DAY, 'after')`,
    [DAY, DAY],
  );
  await fx.copy(table, DAY);
  const record = await fx.ledger.copiedDay(table, DAY);
  return { table, chunks: record?.chunks ?? [] };
}

/** The deleter, counting the chunks it deletes and the plans it makes (the old whole-day pass). */
function counting(deleter: DayDeleter = fx.deleter) {
  const counts = { plans: 0, deletes: 0 };
  const counted: DayDeleter = {
    ...deleter,
    async planChunks(...args) {
      counts.plans += 1;
      return deleter.planChunks(...args);
    },
    async deleteChunk(...args) {
      counts.deletes += 1;
      return deleter.deleteChunk(...args);
    },
  };
  return { counted, counts };
}

async function dayIds(table: string): Promise<string[]> {
  return fx.idsOn(table, DAY);
}

/** Ids of the day inside a chunk's key range. */
async function idsIn(table: string, chunk: DayChunk): Promise<string[]> {
  const rows = await fx.query<{ k: string }>(
    `SELECT CAST(id AS CHAR) AS k FROM \`${table}\` WHERE id BETWEEN ? AND ? ORDER BY id`,
    [chunk.first, chunk.last],
  );
  return rows.map((row) => row.k);
}

async function warehouseRows(table: string): Promise<number> {
  // The neighbouring days were never copied: the table holds the day alone.
  return fx.warehouse.countRows({ dataset: "archive", table });
}

describe("cleanDay by the copy's recorded chunks", () => {
  it("deletes the day chunk by chunk, each its own transaction, without reading the day first", async () => {
    const { table, chunks } = await copiedTable();
    expect(chunks.map((chunk) => chunk.rows)).toEqual([1000, 1000, 1000, 500]);
    const { counted, counts } = counting();
    const report = await cleanDay(fx.deps({ deleter: counted, settings }), cleanTask(table, DAY));
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: ROWS, chunks: 4, resumed: false });
    expect(counts).toEqual({ plans: 0, deletes: 4 });
    expect(await dayIds(table)).toEqual([]);
    expect(await fx.ids(table)).toEqual(["1", "2"]);
    expect(await warehouseRows(table)).toBe(ROWS);
    expect(await fx.deps().state.read({ table, day: DAY })).toMatchObject({
      status: "done",
      rowsDeleted: ROWS,
    });
  });

  it("refuses the chunk of a row updated after its copy and the rest of the day, as a verified plan does", async () => {
    const { table, chunks } = await copiedTable();
    const third = chunks[2] as DayChunk;
    const kept = [...(await idsIn(table, third)), ...(await idsIn(table, chunks[3] as DayChunk))];
    await fx.query(`UPDATE \`${table}\` SET note = 'changed' WHERE id = ?`, [kept[10]]);

    const refused = await refusal(cleanDay(fx.deps({ settings }), cleanTask(table, DAY)));
    expect(refused.reason).toBe("changed");
    expect(refused.message).toMatch(
      new RegExp(
        `id ${third.first}\\.\\.${third.last}: rows changed since verification: planned 1000 rows ` +
          `\\(fingerprint ${third.fingerprint}\\), found 1000 \\(fingerprint \\d+\\); nothing in that range was ` +
          "deleted, 2000 rows of the day were deleted before it",
      ),
    );
    // The chunks before it were exactly their copy; its rows and every later chunk's stay.
    expect(await dayIds(table)).toEqual(kept);
    // The day stays refused: a retry deletes nothing more, in the same words.
    const again = await refusal(cleanDay(fx.deps({ settings }), cleanTask(table, DAY)));
    expect(again.message).toContain("rows changed since verification: planned 1000 rows");
    expect(await dayIds(table)).toEqual(kept);
    expect(await warehouseRows(table)).toBe(ROWS);
  });

  it("refuses the chunk a row was inserted into late, between two copied keys, and keeps the late row", async () => {
    const { table, chunks } = await copiedTable();
    const second = chunks[1] as DayChunk;
    const inside = await idsIn(table, second);
    // A key in a gap of the second chunk's range, on the day: no copy holds it.
    const late = String(BigInt(inside[0] as string) + 1n);
    expect(inside).not.toContain(late);
    await fx.query(`INSERT INTO \`${table}\` VALUES (?, ?, 'late')`, [late, `${DAY} 12:00:00`]);

    const refused = await refusal(cleanDay(fx.deps({ settings }), cleanTask(table, DAY)));
    expect(refused.message).toMatch(/planned 1000 rows .*found 1001/);
    expect(await idsIn(table, chunks[0] as DayChunk)).toEqual([]);
    expect(await idsIn(table, second)).toEqual([...inside, late].sort((a, b) => Number(a) - Number(b)));
    expect(await dayIds(table)).toHaveLength(ROWS - 1000 + 1);
  });

  it("refuses the last chunk when a late row of the day lies outside every recorded chunk", async () => {
    const { table, chunks } = await copiedTable();
    const last = chunks.at(-1) as DayChunk;
    const beyond = String(BigInt(last.last) + 5n);
    await fx.query(`INSERT INTO \`${table}\` VALUES (?, ?, 'late')`, [beyond, `${DAY} 23:00:00`]);

    const refused = await refusal(cleanDay(fx.deps({ settings }), cleanTask(table, DAY)));
    expect(refused.message).toMatch(/planned 500 rows .*found 501/);
    // The last chunk stands for the day: its rows and the late one stay.
    expect(await dayIds(table)).toEqual([...(await idsIn(table, last)), beyond]);
    expect(await idsIn(table, last)).toHaveLength(500);
  });

  it("verifies the whole day, deleting nothing, when its first chunk changed (and copies it again when asked)", async () => {
    const { table, chunks } = await copiedTable();
    const first = await idsIn(table, chunks[0] as DayChunk);
    await fx.query(`UPDATE \`${table}\` SET note = 'changed' WHERE id = ?`, [first[3]]);
    const { counted, counts } = counting();

    const refused = await refusal(cleanDay(fx.deps({ deleter: counted, settings }), cleanTask(table, DAY)));
    expect(refused.reason).toBe("changed");
    expect(counts.plans).toBe(1);
    expect(await dayIds(table)).toHaveLength(ROWS);
    expect(await fx.deps().state.read({ table, day: DAY })).toBeUndefined();

    const copied = await fx.ledger.copiedDay(table, DAY);
    const report = await cleanDay(fx.deps({ settings }), {
      ...cleanTask(table, DAY),
      recopyChangedDays: true,
    });
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: ROWS });
    const recopied = await fx.ledger.copiedDay(table, DAY);
    expect(recopied?.figures.fingerprint).not.toBe(copied?.figures.fingerprint);
    expect(recopied?.chunks?.[0]?.fingerprint).not.toBe(copied?.chunks?.[0]?.fingerprint);
    expect(await dayIds(table)).toEqual([]);
  });
});

describe("cleanDay by recorded chunks, killed at any point", () => {
  // Killed before or after each chunk's commit, or as its progress is recorded: the retry loses
  // nothing, deletes what is left exactly once, and resumes where the state says.
  // `recorded`: the chunks the state says are done after the kill (none: the day has no state yet).
  const kills: {
    name: string;
    recorded?: number;
    deleter?: (d: DayDeleter) => DayDeleter;
    state?: (s: CleanupState) => CleanupState;
  }[] = [];
  for (let n = 1; n <= 4; n++) {
    const recorded = n === 1 ? {} : { recorded: n - 1 };
    kills.push({ name: `before chunk ${n}`, ...recorded, deleter: (d) => failAfter(d, n, "before") });
    kills.push({ name: `after chunk ${n} committed`, ...recorded, deleter: (d) => failAfter(d, n, "after") });
  }
  for (let n = 1; n <= 3; n++)
    kills.push({
      name: `while recording progress ${n}`,
      recorded: n - 1,
      state: (s) => failingProgress(s, n),
    });
  kills.push({
    name: "while recording the day done",
    recorded: 3,
    state: (s) => ({ ...s, markDone: killed }),
  });

  for (const kill of kills) {
    it(`${kill.name}: the retry deletes the rest exactly, and nothing is lost`, async () => {
      const { table } = await copiedTable();
      const base = fx.deps({ settings });
      const dying = fx.deps({
        settings,
        ...(kill.deleter ? { deleter: kill.deleter(fx.deleter) } : {}),
        ...(kill.state ? { state: kill.state(base.state) } : {}),
      });
      await expect(cleanDay(dying, cleanTask(table, DAY))).rejects.toThrow("killed");
      const left = (await dayIds(table)).length;
      const state = await base.state.read({ table, day: DAY });
      if (kill.recorded === undefined) expect(state).toBeUndefined();
      else expect(state).toMatchObject({ status: "deleting", chunksDone: kill.recorded });
      expect(await warehouseRows(table)).toBe(ROWS);

      const { counted, counts } = counting();
      const report = await cleanDay(fx.deps({ deleter: counted, settings }), cleanTask(table, DAY));
      // Resumed from its recorded progress, never planned again: the chunks recorded done are not touched.
      expect(counts).toEqual({ plans: 0, deletes: 4 - (kill.recorded ?? 0) });
      expect(report.resumed).toBe(kill.recorded !== undefined);
      // Every row is counted once: deleted before the kill and recorded, deleted now, or found gone
      // (committed before the kill, never recorded).
      const before = state?.status === "deleting" ? state.rowsDeleted : 0;
      expect(report.rowsDeleted).toBe(before + left);
      expect(report.rowsFoundGone).toBe(ROWS - left - before);
      expect(await dayIds(table)).toEqual([]);
      expect(await fx.ids(table)).toEqual(["1", "2"]);
      expect(await warehouseRows(table)).toBe(ROWS);
      expect(await base.state.read({ table, day: DAY })).toMatchObject({ status: "done" });
    });
  }
});

describe("cleanDay by recorded chunks when Redis loses its data", () => {
  it("takes the chunks back from the warehouse's durable record, before or part way through a day", async () => {
    const { table } = await copiedTable();
    await expect(
      cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 3), settings }), cleanTask(table, DAY)),
    ).rejects.toThrow("killed");
    expect(await dayIds(table)).toHaveLength(ROWS - 3000);
    await emptyRedisOf(table);
    expect(await fx.ledger.isMigrated(table, DAY)).toBe(false);

    const { counted, counts } = counting();
    const report = await cleanDay(fx.deps({ deleter: counted, settings }), cleanTask(table, DAY));
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 500, rowsFoundGone: 3000 });
    expect(counts.plans).toBe(0);
    expect(await dayIds(table)).toEqual([]);
    expect((await fx.ledger.copiedDay(table, DAY))?.chunks).toHaveLength(4);
    expect(await warehouseRows(table)).toBe(ROWS);
  });
});

describe("cleanDay of a day copied before chunks were recorded", () => {
  it("plans the day by reading it, as before, and deletes exactly it", async () => {
    const { table } = await copiedTable();
    const record = (await fx.ledger.copiedDay(table, DAY)) as CopiedDayRecord;
    const { chunks: _dropped, ...old } = record;
    await fx.redis.hset(`archiver:copied:${table}`, DAY, JSON.stringify(old));
    expect((await fx.ledger.copiedDay(table, DAY))?.chunks).toBeUndefined();

    const { counted, counts } = counting();
    const report = await cleanDay(fx.deps({ deleter: counted, settings }), cleanTask(table, DAY));
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: ROWS, chunks: 4 });
    expect(counts.plans).toBe(1);
    expect(await fx.ids(table)).toEqual(["1", "2"]);
  });
});

const killed = async (): Promise<never> => {
  throw new Error("killed");
};

/** A state whose `n`-th progress write dies (Redis gone, or the process killed, as it records it). */
function failingProgress(state: CleanupState, n: number): CleanupState {
  let writes = 0;
  return {
    ...state,
    async recordProgress(at, progress) {
      writes += 1;
      if (writes === n) await killed();
      return state.recordProgress(at, progress);
    },
  };
}

/** What Redis held of the table and the fixture's cleanup state, gone (as a Redis restarted empty). */
async function emptyRedisOf(table: string): Promise<void> {
  await fx.redis.del(`archiver:copied:${table}`, `mig_${table}`);
  const keys = await fx.redis.keys(`${fx.prefix}:clean*:${table}*`);
  if (keys.length > 0) await fx.redis.del(...keys);
}
