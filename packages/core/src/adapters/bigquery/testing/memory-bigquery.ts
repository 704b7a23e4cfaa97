import type { TableField } from "@google-cloud/bigquery";
import type { Destination } from "../../../model/destination";
import { NO_COUNTS, type RunRecord } from "../../../model/run";
import { toRunRow } from "../../warehouse/run-record-rows";
import {
  dayFiguresQuery,
  dayKeysQuery,
  dayRecordQueries,
  daysFiguresQuery,
  rowCountQuery,
} from "../bigquery-queries";
import { runRecordQueries } from "../bigquery-run-queries";
import { apiError, bigQueryDouble, type DoubleUpload } from "./client-double";

/** One loaded row: its values for queries, its NDJSON line as uploaded for exact reads. */
export interface StoredRow {
  readonly values: Readonly<Record<string, unknown>>;
  readonly line: string;
}

type Params = Readonly<Record<string, string>>;
type Answer = (params: Params) => Record<string, string | null>[];

/** Any run: the run statements bind every value, so their text is the same for every run. */
const ANY_RUN: RunRecord = {
  ...NO_COUNTS,
  id: "",
  table: "",
  mode: "migration",
  dataset: "",
  startedAt: "",
  endedAt: "",
  queued: 0,
  result: "succeeded",
};

/** Any day: the statements bind the day as parameters, so their text is the same for every day. */
const ANY_DAY = "2000-01-01";

/**
 * The client double with rows, for the shared warehouse contract suite. A
 * load job replaces its partition (WRITE_TRUNCATE), adds the columns its
 * schema adds, and is refused when a row names an unknown column or lies
 * outside the partition. A query is answered over the loaded rows only when
 * it is, word for word, one the adapter's statement functions
 * (bigquery-queries.ts) build for one of the double's tables and columns: it
 * runs no SQL, refuses any other text, and needs no change when those
 * functions change. It is not BigQuery: what BigQuery stores and prints only
 * the live suite shows.
 */
export function memoryBigQuery() {
  /** Loaded rows by table (`project.dataset.table`), then partition (`20240131`; `""` unpartitioned). */
  const partitions = new Map<string, Map<string, StoredRow[]>>();
  const rowsOf = (path: string) => [...(partitions.get(path)?.values() ?? [])].flat();
  const partitionsOf = (path: string) => {
    if (!partitions.has(path)) partitions.set(path, new Map());
    return partitions.get(path) as Map<string, StoredRow[]>;
  };

  function load({ target, metadata, text }: DoubleUpload) {
    const [path = "", partition = ""] = target.split("$");
    const table = double.tables.get(path);
    if (!table) throw jobError("notFound", `Not found: Table ${path}`);
    const fields = (table.schema?.fields ?? []) as TableField[];
    const known = new Set(fields.map((f) => f.name?.toLowerCase()));
    const added = (metadata.schema?.fields ?? []).filter((f) => !known.has(f.name?.toLowerCase()));
    const columns = new Set([...fields, ...added].map((f) => f.name?.toLowerCase()));
    const partitionField = table.timePartitioning?.field;
    const rows = text
      .split("\n")
      .filter(Boolean)
      .map((line) => ({ values: JSON.parse(line) as Record<string, unknown>, line }));
    for (const [index, { values }] of rows.entries()) {
      const unknown = Object.keys(values).find((name) => !columns.has(name.toLowerCase()));
      if (unknown !== undefined) throw jobError("invalid", `Row ${index}: no such field: ${unknown}.`);
      const day = String(values[partitionField ?? ""] ?? "").slice(0, 10);
      if (partitionField && partition && day.replaceAll("-", "") !== partition) {
        throw jobError("invalid", `Row ${index}: ${partitionField} ${day} is not of partition ${partition}.`);
      }
    }
    table.schema = { fields: [...fields, ...added] };
    const kept =
      metadata.writeDisposition === "WRITE_TRUNCATE" ? [] : (partitionsOf(path).get(partition) ?? []);
    partitionsOf(path).set(partition, [...kept, ...rows]);
    return { id: `load_${target}`, metadata: { statistics: { load: { outputRows: String(rows.length) } } } };
  }

  /** Every statement the adapter can send about the table at `path`, by its text, with how to answer it. */
  function statementsOn(path: string): Map<string, Answer> {
    const [project = "", dataset = "", name = ""] = path.split(".");
    const at: Destination = { project, dataset, table: name };
    const entries = (keep: (values: Readonly<Record<string, unknown>>) => boolean) =>
      rowsOf(path)
        .map(({ values }) => values)
        .filter(keep);
    const anyEntry = { source_table: "", day: "", kind: "", entry: "" };
    const anyRun = toRunRow(ANY_RUN);
    const statements = new Map<string, Answer>([
      [rowCountQuery(at, project).query, () => [{ row_count: String(rowsOf(path).length) }]],
      [
        dayRecordQueries.insert(at, project, anyEntry).query,
        (params) => {
          const values = { ...params, recorded_at: new Date().toISOString() };
          partitionsOf(path).set("", [...rowsOf(path), { values, line: JSON.stringify(values) }]);
          return [];
        },
      ],
      [
        dayRecordQueries.day(at, project, "", ANY_DAY).query,
        (params) =>
          entries((v) => v.source_table === params.source_table && v.day === params.day).map((v) => ({
            kind: String(v.kind),
            entry: String(v.entry),
          })),
      ],
      [
        dayRecordQueries.copies(at, project, "").query,
        (params) =>
          entries((v) => v.source_table === params.source_table && v.kind === "copied").map((v) => ({
            entry: String(v.entry),
          })),
      ],
      [
        dayRecordQueries.tables(at, project).query,
        () =>
          [...new Set(entries((v) => v.kind === "copied").map((v) => String(v.source_table)))]
            .sort()
            .map((source_table) => ({ source_table })),
      ],
      [
        runRecordQueries.insert(at, project, anyRun).query,
        (params) => {
          const values = { ...params, recorded_at: new Date().toISOString() };
          partitionsOf(path).set("", [...rowsOf(path), { values, line: JSON.stringify(values) }]);
          return [];
        },
      ],
      [
        runRecordQueries.latest(at, project, "", 1).query,
        (params) =>
          entries((v) => params.source_table === "" || v.source_table === params.source_table)
            .sort((a, b) => String(b.started_at).localeCompare(String(a.started_at)))
            .slice(0, Number(params.limit))
            .map((v) => ({ record: String(v.record) })),
      ],
    ]);
    const columns = ((double.tables.get(path)?.schema?.fields ?? []) as TableField[]).map((f) =>
      String(f.name),
    );
    for (const filterColumn of columns) {
      const day = { destination: at, filterColumn, day: ANY_DAY };
      const span = { destination: at, filterColumn, days: [ANY_DAY] };
      const between = (start = "", end = "") =>
        rowsOf(path).filter(({ values }) => {
          const value = String(values[filterColumn] ?? "").replace("T", " ");
          return typeof values[filterColumn] === "string" && value >= start && value < end;
        });
      const byDay = (params: Params, key?: string) => {
        const days = new Map<string, StoredRow[]>();
        for (const row of between(params.span_start, params.span_end)) {
          const day = String(row.values[filterColumn]).slice(0, 10);
          days.set(day, [...(days.get(day) ?? []), row]);
        }
        return [...days].map(([day, rows]) => ({ day, ...figures(rows, key) }));
      };
      for (const key of [undefined, ...columns]) {
        statements.set(dayFiguresQuery(day, project, key).query, (params) => [
          figures(between(params.day_start, params.next_day_start), key),
        ]);
        statements.set(daysFiguresQuery(span, project, key).query, (params) => byDay(params, key));
        if (key === undefined) continue;
        statements.set(dayKeysQuery(day, project, key).query, (params) =>
          // One row per stored row of the day, its key as BigQuery's CAST(... AS STRING) prints it,
          // ordered by value as ORDER BY orders the column (NULL first), not as text.
          between(params.day_start, params.next_day_start)
            .map(({ values }) => ({ k: keyText(values[key]) }))
            .sort((a, b) => byKeyValue(a.k, b.k)),
        );
      }
    }
    return statements;
  }

  const double = bigQueryDouble({
    query({ query, params }) {
      // DATETIME parameters come wrapped (BigQuery.datetime), the others as they are.
      const text = Object.fromEntries(
        Object.entries(params).map(([name, v]) => [name, String((v as { value?: unknown })?.value ?? v)]),
      );
      for (const path of double.tables.keys()) {
        const answer = query.includes(`\`${path}\``) ? statementsOn(path).get(query) : undefined;
        if (answer) return answer(text);
      }
      // A statement naming a table the double does not hold: BigQuery's 404.
      const named = /(?:FROM|INTO) `([^`]+)`/.exec(query)?.[1];
      if (named !== undefined && !double.tables.has(named)) {
        throw apiError(404, "notFound", `Not found: Table ${named}`);
      }
      throw apiError(400, "invalidQuery", `the double does not recognise this query: ${query}`);
    },
    load,
  });
  return { client: double.client, partitions };
}

/** A day's count, and the key's figures when it has one, every figure as text as the queries cast them. */
function figures(rows: readonly StoredRow[], key: string | undefined): Record<string, string | null> {
  if (key === undefined) return { row_count: String(rows.length) };
  const keys = rows
    .map(({ values }) => values[key])
    .filter((value) => value !== null && value !== undefined)
    .map((value) => BigInt(value as string | number))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    row_count: String(rows.length),
    key_count: String(keys.length),
    key_sum: String(keys.reduce((sum, value) => sum + value, 0n)),
    key_min: keys.length > 0 ? String(keys[0]) : null,
    key_max: keys.length > 0 ? String(keys.at(-1)) : null,
  };
}

/** Ascending by integer value, NULL first. */
function byKeyValue(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
}

/** An INTEGER or NUMERIC key as text (`007` and 7 print as `7`); NULL stays NULL. */
function keyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if ((typeof value === "string" && /^-?\d+$/.test(value)) || Number.isSafeInteger(value)) {
    return String(BigInt(value as string | number));
  }
  return String(value);
}

/** A finished job's error as the client library raises it (an ApiError built from the job's status). */
function jobError(reason: string, message: string): Error {
  return Object.assign(new Error(message), { errors: [{ reason, message }] });
}
