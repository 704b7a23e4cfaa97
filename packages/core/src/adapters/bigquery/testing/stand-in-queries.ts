import { allRows, type StandInTable } from "./stand-in-tables";

/** A query answer: column names and one row of text values (all the adapter asks for). */
export interface QueryAnswer {
  readonly columns: readonly string[];
  readonly row: readonly (string | null)[];
}

const COUNT_ALL = /^SELECT CAST\(COUNT\(\*\) AS STRING\) AS row_count FROM `([^`]+)`$/;
const DAY_FIGURES = /^SELECT (.+) FROM `([^`]+)` WHERE `(\w+)` >= @day_start AND `\w+` < @next_day_start$/;
const KEY_SUM = /SUM\(CAST\(`(\w+)` AS BIGNUMERIC\)\)/;

/**
 * Answers the two queries the warehouse adapter sends (whole-table count and
 * one day's figures) over the rows the stand-in holds. It is not SQL: any
 * other text is refused, so a change to the adapter's queries shows up here.
 */
export function answerQuery(
  sql: string,
  params: Readonly<Record<string, string>>,
  findTable: (path: string) => StandInTable | undefined,
): QueryAnswer | { readonly notFound: string } | { readonly invalid: string } {
  const count = COUNT_ALL.exec(sql);
  if (count) {
    const table = findTable(count[1] ?? "");
    if (!table) return { notFound: count[1] ?? "" };
    return { columns: ["row_count"], row: [String(allRows(table).length)] };
  }
  const figures = DAY_FIGURES.exec(sql);
  if (!figures) return { invalid: `the stand-in does not understand this query: ${sql}` };
  const [, select = "", path = "", column = ""] = figures;
  const table = findTable(path);
  if (!table) return { notFound: path };
  const start = params.day_start ?? "";
  const end = params.next_day_start ?? "";
  const rows = allRows(table).filter(({ values }) => {
    const value = values[column];
    return typeof value === "string" && value.replace("T", " ") >= start && value.replace("T", " ") < end;
  });
  const key = KEY_SUM.exec(select)?.[1];
  if (!key) return { columns: ["row_count"], row: [String(rows.length)] };
  const keys = rows.map(({ values }) => values[key]).filter((value) => value !== null && value !== undefined);
  const values = keys.map((value) => BigInt(value as string | number));
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    columns: ["row_count", "key_count", "key_sum", "key_min", "key_max"],
    row: [
      String(rows.length),
      String(values.length),
      String(values.reduce((sum, value) => sum + value, 0n)),
      sorted.length > 0 ? String(sorted[0]) : null,
      sorted.length > 0 ? String(sorted.at(-1)) : null,
    ],
  };
}
