import type { Row, TableSchema } from "../model/table-schema";
import { sourceColumn } from "./fakes/source-column";

// The tables describeDayDeleterContract deletes from. Each test creates its
// own copy under its own name, since deleting changes them.

/** A table of the suite: its columns (as information_schema describes them) and its rows, in canonical values. */
export interface DayDeleterContractTable {
  readonly schema: TableSchema;
  readonly rows: readonly Row[];
}

/** `id` (an integer primary key of `idType`), `at DATETIME(6)`. */
function keyed(name: string, idType: string, rows: readonly Row[]): DayDeleterContractTable {
  return {
    schema: {
      name,
      columns: [sourceColumn("id", idType, false), sourceColumn("at", "datetime(6)", false)],
      primaryKey: ["id"],
      indexLeadingColumns: ["id", "at"],
    },
    rows,
  };
}

/** No primary key: `at DATETIME`, `note VARCHAR(8)`; chunks are ranges of `at`. */
function keyless(name: string, rows: readonly Row[]): DayDeleterContractTable {
  return {
    schema: {
      name,
      columns: [sourceColumn("at", "datetime", false), sourceColumn("note", "varchar(8)")],
      primaryKey: [],
      indexLeadingColumns: ["at"],
    },
    rows,
  };
}

/**
 * BIGINT UNSIGNED keys at the top of the range: four rows on 2024-01-01
 * (its first and last microsecond among them), one on each neighbouring day.
 */
export const bigTable = (name: string) =>
  keyed(name, "bigint(20) unsigned", [
    ["18446744073709551610", "2024-01-01 00:00:00.000000"],
    ["18446744073709551611", "2024-01-01 01:00:00.000000"],
    ["18446744073709551612", "2024-01-01 02:00:00.000000"],
    ["18446744073709551613", "2024-01-01 23:59:59.999999"],
    ["18446744073709551614", "2024-01-02 00:00:00.000000"],
    ["18446744073709551615", "2023-12-31 23:59:59.999999"],
  ]);

/** Signed keys on both sides of zero: four rows on 2024-01-01, one the next day. */
export const negativeTable = (name: string) =>
  keyed(name, "int(11)", [
    ["-5", "2024-01-01 01:00:00.000000"],
    ["-3", "2024-01-01 02:00:00.000000"],
    ["-1", "2024-01-01 03:00:00.000000"],
    ["2", "2024-01-01 04:00:00.000000"],
    ["4", "2024-01-02 04:00:00.000000"],
  ]);

/** Two rows on 2024-01-31, a partial zero date that sorts inside that day's range, one row the next day. */
export const zeroDateTable = (name: string) =>
  keyless(name, [
    ["2024-01-31 10:00:00", "a"],
    ["2024-01-31 11:00:00", "b"],
    ["2024-02-00 10:00:00", "zero"],
    ["2024-02-01 00:00:00", "next"],
  ]);

/** Three rows at one instant of 2024-03-01, three more at other instants, and a partial zero date. */
export const duplicateTable = (name: string) =>
  keyless(name, [
    ["2024-03-01 01:00:00", "a"],
    ["2024-03-01 01:00:00", "a"],
    ["2024-03-01 01:00:00", "a"],
    ["2024-03-01 02:00:00", "b"],
    ["2024-03-01 03:00:00", "c"],
    ["2024-03-01 04:00:00", "d"],
    ["2024-03-00 04:00:00", "z"],
  ]);

/**
 * `id INT` primary key, `at DATETIME(6)`, `parent_id INT` (another row's
 * `id`): on 2024-01-01 row 1, row 2 under 1 and row 3 under 2; on the next
 * day row 4 under 3.
 */
export function treeTable(name: string): DayDeleterContractTable {
  const { schema } = keyed(name, "int(11)", []);
  return {
    schema: { ...schema, columns: [...schema.columns, sourceColumn("parent_id", "int(11)")] },
    rows: [
      ["1", "2024-01-01 00:00:00.000000", null],
      ["2", "2024-01-01 01:00:00.000000", "1"],
      ["3", "2024-01-01 02:00:00.000000", "2"],
      ["4", "2024-01-02 00:00:00.000000", "3"],
    ],
  };
}
