import type { Redis } from "ioredis";
import { InvalidInputError, RefusalError } from "../../errors";
import { type CalendarDay, isCalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { MigrationLedger } from "../../ports/migration-ledger";
import { withRedisErrors } from "./map-redis-error";

const MIGRATED_PREFIX = "mig_";
const COPIED_PREFIX = "archiver:copied:";

/** The migrated-days set `mig_<table>`, read by cleanup and by `loadRedisData`. */
export function migratedDaysKey(table: string): string {
  return `${MIGRATED_PREFIX}${table}`;
}

/** Hash of copy records: field = day, value = CopiedDayRecord as JSON. */
export function copiedDaysKey(table: string): string {
  return `${COPIED_PREFIX}${table}`;
}

/**
 * Writes the record, then adds the day to the set, in one script. A script runs
 * atomically (nothing reads between the two writes), and unlike MULTI/EXEC it
 * stops at the first failing call: if the record cannot be written (say the
 * hash key holds another type) the day is never added to `mig_<table>`.
 */
const RECORD_SCRIPT = `
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
redis.call("SADD", KEYS[2], ARGV[1])
return 1
`;

/**
 * The migration ledger on Redis: the set `mig_<table>` (members `YYYY-MM-DD`)
 * and the hash `archiver:copied:<table>` holding what each copy recorded.
 * Failures to reach Redis surface as TransientError.
 */
export function createRedisMigrationLedger(redis: Redis): MigrationLedger {
  return {
    migratedDays: (table) =>
      withRedisErrors(async () => (await redis.smembers(migratedDaysKey(table))).sort()),

    isMigrated: (table, day) =>
      withRedisErrors(async () => (await redis.sismember(migratedDaysKey(table), day)) === 1),

    async recordCopiedDay(table, record) {
      if (!isCalendarDay(record.day))
        throw new InvalidInputError("day", `not a YYYY-MM-DD day: ${record.day}`);
      await withRedisErrors(() =>
        redis.eval(
          RECORD_SCRIPT,
          2,
          copiedDaysKey(table),
          migratedDaysKey(table),
          record.day,
          JSON.stringify(record),
        ),
      );
    },

    async copiedDay(table, day) {
      const json = await withRedisErrors(() => redis.hget(copiedDaysKey(table), day));
      return json === null ? undefined : parseRecord(table, day, json);
    },

    async copiedDays(table, days) {
      const records = new Map<CalendarDay, CopiedDayRecord>();
      if (days.length === 0) return records;
      const texts = await withRedisErrors(() => redis.hmget(copiedDaysKey(table), ...days));
      for (const [index, day] of days.entries()) {
        const json = texts[index];
        if (json !== null && json !== undefined) records.set(day, parseRecord(table, day, json));
      }
      return records;
    },

    tables: () => withRedisErrors(() => scanMigratedTables(redis)),
  };
}

/** SCAN (never KEYS, which blocks the server) for sets named `mig_*`. */
async function scanMigratedTables(redis: Redis): Promise<string[]> {
  const tables = new Set<string>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(
      cursor,
      "MATCH",
      `${MIGRATED_PREFIX}*`,
      "COUNT",
      1000,
      "TYPE",
      "set",
    );
    // SCAN may return a key more than once; the set removes repeats.
    for (const key of keys)
      if (key.length > MIGRATED_PREFIX.length) tables.add(key.slice(MIGRATED_PREFIX.length));
    cursor = next;
  } while (cursor !== "0");
  return [...tables].sort();
}

function parseRecord(table: string, day: CalendarDay, json: string): CopiedDayRecord {
  try {
    return JSON.parse(json) as CopiedDayRecord;
  } catch (error) {
    // Cleanup verifies against this record; an unreadable one must stop the day, not pass it.
    throw new RefusalError(`copy record of ${table} ${day} is not valid JSON`, { cause: error });
  }
}
