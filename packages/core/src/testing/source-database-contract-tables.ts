import type { Row, TableSchema } from "../model/table-schema";
import { sourceColumn as column } from "./fakes/source-column";

/** A source table the SourceDatabase contract reads: its schema and its rows, as written. */
export interface SourceContractTable {
  /** As MariaDB's information_schema describes it; `columnType` doubles as the column's DDL type. */
  readonly schema: TableSchema;
  /**
   * Canonical values (LogicalType), except that a DATE or DATETIME value may
   * be a zero or partial zero date, which the source must keep out of every
   * day (filter column) or read as null (other columns).
   */
  readonly rows: readonly Row[];
}

const eventColumns = [
  column("id", "bigint(20) unsigned", false),
  column("at", "datetime(6)"),
  column("note", "varchar(20)"),
  column("amount", "decimal(12,2)"),
  column("born", "date"),
];

const events = (name: string): TableSchema => ({
  name,
  columns: eventColumns,
  primaryKey: ["id"],
  indexLeadingColumns: ["id", "at"],
});

const MAX = "18446744073709551615";

/** Days 2024-01-01..04-01 with gaps, both edges of days, keys beyond 2^53, NULL and zero dates. */
const eventRows: readonly Row[] = [
  ["1", "2024-01-01 00:00:00.000000", "first", "10.50", "1990-02-28"],
  ["2", "2024-01-01 12:00:00.000000", null, "-0.01", "0000-00-00"],
  ["3", "2024-01-05 23:59:59.999999", "last instant", null, null],
  ["4", "2024-01-06 00:00:00.000000", "first instant", "0.00", "2000-02-29"],
  ["5", "2024-02-10 08:00:00.000000", "naïve café 🎉", "9999999999.99", null],
  ["6", "2024-02-29 23:59:59.999999", null, null, null],
  ["7", "2024-03-01 00:00:00.000000", null, null, null],
  [MAX, "2024-04-01 01:00:00.000000", "max", null, null],
  ["18446744073709551614", "2024-04-01 02:00:00.000000", null, null, null],
  ["8", "2024-04-01 03:00:00.000000", null, null, null],
  ["9", null, "no day", null, null],
  ["100", "0000-00-00 00:00:00.000000", "zero", null, null],
  ["101", "2023-06-00 10:00:00.000000", "partial", null, null],
  ["102", "2023-00-15 00:00:00.000000", "partial", null, null],
  ["103", "2024-03-00 12:00:00.000000", "partial", null, null],
];

/** The tables every SourceDatabase adapter is given, by name. */
export const sourceContractTables = {
  events: { schema: events("events"), rows: eventRows },
  /** No rows at all. */
  emptyEvents: { schema: events("empty_events"), rows: [] },
  /** The rows of `events`, written in the reverse order. */
  reversed: { schema: events("reversed_events"), rows: [...eventRows].reverse() },
  /** The rows of `events` with one value of 2024-01-01 changed. */
  edited: {
    schema: events("edited_events"),
    rows: eventRows.map((row) => (row[0] === "2" ? [row[0], row[1], "edited", row[3], row[4]] : row)),
  },
  /** A two-column primary key: figures count rows and content only. */
  pairs: {
    schema: {
      name: "pairs",
      columns: [
        column("a", "int(11)", false),
        column("b", "int(11)", false),
        column("at", "datetime(6)", false),
      ],
      primaryKey: ["a", "b"],
      indexLeadingColumns: ["a"],
    },
    rows: [
      [1, 1, "2024-01-01 10:00:00.000000"],
      [1, 2, "2024-01-01 11:00:00.000000"],
    ],
  },
} satisfies Record<string, SourceContractTable>;
