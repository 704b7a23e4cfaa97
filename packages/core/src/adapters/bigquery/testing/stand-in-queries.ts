import type { Destination } from "../../../domain/types/destination";
import {
  dayFiguresQuery,
  dayKeysQuery,
  dayRecordQueries,
  daysFiguresQuery,
  rowCountQuery,
} from "../bigquery-queries";
import { allRows, type StandInTable, type StoredRow } from "./stand-in-tables";

/** A query answer: column names and rows of text values. */
export interface QueryAnswer {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

type Params = Readonly<Record<string, string>>;
type Answer = (params: Params) => QueryAnswer;

/** Any day: the statements bind the day as parameters, so their text is the same for every day. */
const ANY_DAY = "2000-01-01";
const ANY_ENTRY = { source_table: "", day: "", kind: "", entry: "" };

/**
 * Answers the queries the warehouse adapter sends (whole-table count, one
 * day's figures or several days', one day's keys, the durable day record)
 * over the rows the double holds. It is not SQL: a query is recognised only
 * when it is, word for word, what the adapter's own statement functions
 * (bigquery-queries.ts) build for one of the double's tables and columns, so
 * any other text is refused and a change to those functions needs no change
 * here.
 */
export function answerQuery(
  sql: string,
  params: Params,
  paths: Iterable<string>,
  findTable: (path: string) => StandInTable | undefined,
): QueryAnswer | { readonly notFound: string } | { readonly invalid: string } {
  for (const path of paths) {
    if (!sql.includes(`\`${path}\``)) continue;
    const table = findTable(path);
    const answer = table && statementsOn(path, table).get(sql);
    if (answer) return answer(params);
  }
  // A statement naming a table the double does not hold: BigQuery's 404.
  const named = /(?:FROM|INTO) `([^`]+)`/.exec(sql)?.[1];
  if (named !== undefined && !findTable(named)) return { notFound: named };
  return { invalid: `the double does not recognise this query: ${sql}` };
}

/** Every statement the adapter can send about the table at `path`, by its text, with how to answer it. */
function statementsOn(path: string, table: StandInTable): Map<string, Answer> {
  const [project = "", dataset = "", name = ""] = path.split(".");
  const destination: Destination = { project, dataset, table: name };
  const statements = new Map<string, Answer>([
    [rowCountQuery(destination, project).query, () => textRows(["row_count"], [[allRows(table).length]])],
    [dayRecordQueries.insert(destination, project, ANY_ENTRY).query, (params) => appendRecord(table, params)],
    [
      dayRecordQueries.day(destination, project, "", ANY_DAY).query,
      (params) =>
        recordRows(
          table,
          ["kind", "entry"],
          (v) => v.source_table === params.source_table && v.day === params.day,
        ),
    ],
    [
      dayRecordQueries.copies(destination, project, "").query,
      (params) =>
        recordRows(table, ["entry"], (v) => v.source_table === params.source_table && v.kind === "copied"),
    ],
    [dayRecordQueries.tables(destination, project).query, () => recordedTables(table)],
  ]);
  const columns = table.fields.map((field) => field.name);
  for (const filterColumn of columns) {
    const at = { destination, filterColumn, day: ANY_DAY };
    const span = { destination, filterColumn, days: [ANY_DAY] };
    statements.set(dayFiguresQuery(at, project).query, (params) =>
      textRows(["row_count"], [[dayRows(table, filterColumn, params).length]]),
    );
    statements.set(daysFiguresQuery(span, project).query, (params) =>
      byDay(table, filterColumn, params, (rows) => textRows(["row_count"], [[rows.length]])),
    );
    for (const key of columns) {
      statements.set(dayFiguresQuery(at, project, key).query, (params) =>
        keyFigures(dayRows(table, filterColumn, params), key),
      );
      statements.set(daysFiguresQuery(span, project, key).query, (params) =>
        byDay(table, filterColumn, params, (rows) => keyFigures(rows, key)),
      );
      statements.set(dayKeysQuery(at, project, key).query, (params) =>
        // One row per stored row of the day, its key as BigQuery's CAST(... AS STRING) prints it.
        textRows(
          ["k"],
          dayRows(table, filterColumn, params).map(({ values }) => [keyText(values[key])]),
        ),
      );
    }
  }
  return statements;
}

function keyFigures(rows: readonly StoredRow[], key: string): QueryAnswer {
  const held = rows.map(({ values }) => values[key]).filter((value) => value !== null && value !== undefined);
  const values = held.map((value) => BigInt(value as string | number));
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return textRows(
    ["row_count", "key_count", "key_sum", "key_min", "key_max"],
    [
      [
        rows.length,
        values.length,
        values.reduce((sum, value) => sum + value, 0n),
        sorted.length > 0 ? sorted[0] : null,
        sorted.length > 0 ? sorted.at(-1) : null,
      ],
    ],
  );
}

/** The durable day record's INSERT: the row is kept in an unnamed partition (the record table is not partitioned). */
function appendRecord(table: StandInTable, params: Params): QueryAnswer {
  const values = {
    source_table: params.source_table,
    day: params.day,
    kind: params.kind,
    entry: params.entry,
    recorded_at: new Date().toISOString(),
  };
  const rows = table.partitions.get("") ?? [];
  rows.push({ values, line: JSON.stringify(values) });
  table.partitions.set("", rows);
  return textRows([], []);
}

function recordRows(
  table: StandInTable,
  columns: readonly string[],
  keep: (values: Readonly<Record<string, unknown>>) => boolean,
): QueryAnswer {
  const rows = allRows(table).filter(({ values }) => keep(values));
  return textRows(
    columns,
    rows.map(({ values }) => columns.map((column) => values[column])),
  );
}

function recordedTables(table: StandInTable): QueryAnswer {
  const names = new Set(
    allRows(table)
      .filter(({ values }) => values.kind === "copied")
      .map(({ values }) => String(values.source_table)),
  );
  return textRows(
    ["source_table"],
    [...names].sort().map((name) => [name]),
  );
}

/** Rows of values as BigQuery returns `CAST(... AS STRING)` figures: text, or null. */
function textRows(columns: readonly string[], rows: readonly (readonly unknown[])[]): QueryAnswer {
  return {
    columns,
    rows: rows.map((row) =>
      row.map((value) => (value === null || value === undefined ? null : String(value))),
    ),
  };
}

/** The stored rows whose `column` lies in [@day_start, @next_day_start). */
function dayRows(table: StandInTable, column: string, params: Params): StoredRow[] {
  return rowsBetween(table, column, params.day_start ?? "", params.next_day_start ?? "");
}

function rowsBetween(table: StandInTable, column: string, start: string, end: string): StoredRow[] {
  return allRows(table).filter(({ values }) => {
    const value = values[column];
    return typeof value === "string" && value.replace("T", " ") >= start && value.replace("T", " ") < end;
  });
}

/** The rows in [@span_start, @span_end) grouped by day: `figures` of each day's rows, the day first (column `day`). */
function byDay(
  table: StandInTable,
  column: string,
  params: Params,
  figures: (rows: StoredRow[]) => QueryAnswer,
): QueryAnswer {
  const days = new Map<string, StoredRow[]>();
  for (const row of rowsBetween(table, column, params.span_start ?? "", params.span_end ?? "")) {
    const day = String(row.values[column]).slice(0, 10);
    const held = days.get(day) ?? [];
    held.push(row);
    days.set(day, held);
  }
  const answers = [...days].map(([day, rows]) => ({ day, answer: figures(rows) }));
  return {
    columns: ["day", ...(answers[0]?.answer.columns ?? [])],
    rows: answers.flatMap(({ day, answer }) => answer.rows.map((row) => [day, ...row])),
  };
}

/** An INTEGER or NUMERIC key as text (`007` and 7 print as `7`); NULL stays NULL. */
function keyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if ((typeof value === "string" && /^-?\d+$/.test(value)) || Number.isSafeInteger(value)) {
    return String(BigInt(value as string | number));
  }
  return String(value);
}
