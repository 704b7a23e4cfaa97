import { allRows, type StandInTable, type StoredRow } from "./stand-in-tables";

/** A query answer: column names and rows of text values. */
export interface QueryAnswer {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

const COUNT_ALL = /^SELECT CAST\(COUNT\(\*\) AS STRING\) AS row_count FROM `([^`]+)`$/;
const DAY_FIGURES =
  /^SELECT (CAST\(COUNT\(\*\) AS STRING\) AS row_count(?:, .+)?) FROM `([^`]+)` WHERE `(\w+)` >= @day_start AND `\3` < @next_day_start$/;
const DAY_KEYS =
  /^SELECT CAST\(`(\w+)` AS STRING\) AS k FROM `([^`]+)` WHERE `(\w+)` >= @day_start AND `\3` < @next_day_start$/;
const KEY_SUM = /SUM\(CAST\(`(\w+)` AS BIGNUMERIC\)\)/;
const RECORD_INSERT =
  /^INSERT INTO `([^`]+)` \(source_table, day, kind, entry, recorded_at\) VALUES \(@source_table, @day, @kind, @entry, CURRENT_TIMESTAMP\(\)\)$/;
const RECORD_DAY = /^SELECT kind, entry FROM `([^`]+)` WHERE source_table = @source_table AND day = @day$/;
const RECORD_COPIES = /^SELECT entry FROM `([^`]+)` WHERE source_table = @source_table AND kind = 'copied'$/;
const RECORD_TABLES =
  /^SELECT DISTINCT source_table FROM `([^`]+)` WHERE kind = 'copied' ORDER BY source_table$/;

/**
 * Answers the queries the warehouse adapter sends (whole-table count, one
 * day's figures, one day's keys) over the rows the stand-in holds. It is not
 * SQL: any other text is refused, so a change to the adapter's queries shows
 * up here.
 */
export function answerQuery(
  sql: string,
  params: Readonly<Record<string, string>>,
  findTable: (path: string) => StandInTable | undefined,
): QueryAnswer | { readonly notFound: string } | { readonly invalid: string } {
  const record = answerDayRecordQuery(sql, params, findTable);
  if (record) return record;
  const count = COUNT_ALL.exec(sql);
  if (count) {
    const table = findTable(count[1] ?? "");
    if (!table) return { notFound: count[1] ?? "" };
    return { columns: ["row_count"], rows: [[String(allRows(table).length)]] };
  }
  const keys = DAY_KEYS.exec(sql);
  if (keys) {
    const [, key = "", path = "", column = ""] = keys;
    const table = findTable(path);
    if (!table) return { notFound: path };
    // One row per stored row of the day, its key as BigQuery's CAST(... AS STRING) prints it.
    return {
      columns: ["k"],
      rows: dayRows(table, column, params).map(({ values }) => [keyText(values[key])]),
    };
  }
  const figures = DAY_FIGURES.exec(sql);
  if (!figures) return { invalid: `the stand-in does not understand this query: ${sql}` };
  const [, select = "", path = "", column = ""] = figures;
  const table = findTable(path);
  if (!table) return { notFound: path };
  const rows = dayRows(table, column, params);
  const key = KEY_SUM.exec(select)?.[1];
  if (!key) return { columns: ["row_count"], rows: [[String(rows.length)]] };
  const held = rows.map(({ values }) => values[key]).filter((value) => value !== null && value !== undefined);
  const values = held.map((value) => BigInt(value as string | number));
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    columns: ["row_count", "key_count", "key_sum", "key_min", "key_max"],
    rows: [
      [
        String(rows.length),
        String(values.length),
        String(values.reduce((sum, value) => sum + value, 0n)),
        sorted.length > 0 ? String(sorted[0]) : null,
        sorted.length > 0 ? String(sorted.at(-1)) : null,
      ],
    ],
  };
}

/**
 * The durable day record's statements: an INSERT appends a row (kept in an
 * unnamed partition: the record table is not partitioned), the two SELECTs
 * filter by the bound source table and day or kind.
 */
function answerDayRecordQuery(
  sql: string,
  params: Readonly<Record<string, string>>,
  findTable: (path: string) => StandInTable | undefined,
): QueryAnswer | { readonly notFound: string } | undefined {
  const match =
    RECORD_INSERT.exec(sql) ?? RECORD_DAY.exec(sql) ?? RECORD_COPIES.exec(sql) ?? RECORD_TABLES.exec(sql);
  if (!match) return undefined;
  const path = match[1] ?? "";
  const table = findTable(path);
  if (!table) return { notFound: path };
  if (sql.startsWith("SELECT DISTINCT")) {
    const names = new Set(
      allRows(table)
        .filter(({ values }) => values.kind === "copied")
        .map(({ values }) => String(values.source_table)),
    );
    return { columns: ["source_table"], rows: [...names].sort().map((name) => [name]) };
  }
  if (sql.startsWith("INSERT")) {
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
    return { columns: [], rows: [] };
  }
  const rows = allRows(table).filter(
    ({ values }) =>
      values.source_table === params.source_table &&
      (sql.includes("@day") ? values.day === params.day : values.kind === "copied"),
  );
  return sql.startsWith("SELECT kind")
    ? {
        columns: ["kind", "entry"],
        rows: rows.map(({ values }) => [String(values.kind), String(values.entry)]),
      }
    : { columns: ["entry"], rows: rows.map(({ values }) => [String(values.entry)]) };
}

/** The stored rows whose `column` lies in [@day_start, @next_day_start). */
function dayRows(table: StandInTable, column: string, params: Readonly<Record<string, string>>): StoredRow[] {
  const start = params.day_start ?? "";
  const end = params.next_day_start ?? "";
  return allRows(table).filter(({ values }) => {
    const value = values[column];
    return typeof value === "string" && value.replace("T", " ") >= start && value.replace("T", " ") < end;
  });
}

/** An INTEGER or NUMERIC key as text (`007` and 7 print as `7`); NULL stays NULL. */
function keyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if ((typeof value === "string" && /^-?\d+$/.test(value)) || Number.isSafeInteger(value)) {
    return String(BigInt(value as string | number));
  }
  return String(value);
}
