import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { DatasetRef, DayRecordEntry, DayRecordStore, DurableDayRecord } from "../../ports/day-record";
import {
  DAY_RECORD_TABLE,
  type DayRecordRow,
  foldDayRecord,
  latestCopies,
  toDayRecordRow,
} from "../warehouse/day-record-rows";
import type { BigQueryCatalog } from "./bigquery-catalog";
import { mapBigQueryError, readOrMissing } from "./bigquery-errors";
import { type BigQueryStatement, dayRecordQueries } from "./bigquery-queries";

/** The record table's columns: every value is text but the instant it was recorded. */
const FIELDS = [
  { name: "source_table", type: "STRING", mode: "REQUIRED" },
  { name: "day", type: "STRING", mode: "REQUIRED" },
  { name: "kind", type: "STRING", mode: "REQUIRED" },
  { name: "entry", type: "STRING", mode: "REQUIRED" },
  { name: "recorded_at", type: "TIMESTAMP", mode: "REQUIRED" },
];

export interface BigQueryDayRecordsOptions {
  readonly catalog: Pick<BigQueryCatalog, "createTable">;
  readonly project: string;
  readonly query: (sql: BigQueryStatement) => Promise<Record<string, unknown>[]>;
}

/**
 * The durable day record on BigQuery: the table `_archiver_days` of each
 * destination dataset (unpartitioned, a row per entry), created on first
 * use. Entries are appended with a DML INSERT, a query job: unlike a load
 * job, it counts against no per-table daily job limit, and its row is read
 * back by the next query at once.
 */
export function createBigQueryDayRecords(options: BigQueryDayRecordsOptions): DayRecordStore {
  const { catalog, project, query } = options;
  const ensured = new Set<string>();
  const at = (dataset: DatasetRef) => ({ ...dataset, table: DAY_RECORD_TABLE });
  const context = (dataset: DatasetRef, action: string) => ({
    action,
    project: dataset.project ?? project,
    dataset: dataset.dataset,
  });

  async function ensureTable(dataset: DatasetRef): Promise<void> {
    const key = `${dataset.project ?? project}.${dataset.dataset}`;
    if (ensured.has(key)) return;
    await catalog.createTable(at(dataset), FIELDS, {
      description: "table-archiver's durable record of copied days and started cleanups.",
    });
    ensured.add(key);
  }

  return {
    async recordDay(dataset, entry: DayRecordEntry) {
      const row: DayRecordRow = toDayRecordRow(entry);
      try {
        await ensureTable(dataset);
        await query(dayRecordQueries.insert(at(dataset), project, row));
      } catch (error) {
        throw mapBigQueryError(
          error,
          context(dataset, `recording ${row.source_table} ${row.day} (${row.kind})`),
        );
      }
    },

    async dayRecord(dataset, table, day: CalendarDay): Promise<DurableDayRecord> {
      return readOrMissing({}, context(dataset, `reading the record of ${table} ${day}`), async () => {
        const rows = await query(dayRecordQueries.day(at(dataset), project, table, day));
        return foldDayRecord(
          rows.map(({ kind, entry }) => ({
            kind: String(kind) as DayRecordRow["kind"],
            entry: String(entry),
          })),
          `${dataset.dataset}.${DAY_RECORD_TABLE} ${table} ${day}`,
        );
      });
    },

    async recordedCopies(dataset, table): Promise<CopiedDayRecord[]> {
      return readOrMissing([], context(dataset, `reading the recorded copies of ${table}`), async () => {
        const rows = await query(dayRecordQueries.copies(at(dataset), project, table));
        return latestCopies(
          rows.map(({ entry }) => ({ entry: String(entry) })),
          `${dataset.dataset}.${DAY_RECORD_TABLE} ${table}`,
        );
      });
    },

    async recordedTables(dataset): Promise<string[]> {
      return readOrMissing<string[]>([], context(dataset, "listing the recorded tables"), async () => {
        const rows = await query(dayRecordQueries.tables(at(dataset), project));
        return rows.map(({ source_table }) => String(source_table));
      });
    },
  };
}
