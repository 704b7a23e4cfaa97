import { BigQuery } from "@google-cloud/bigquery";
import { addDays, startOfDay } from "../../../model/calendar-day";
import type { LogicalType } from "../../../model/logical-type";
import type { Row, TableSchema } from "../../../model/table-schema";
import type { WarehouseDay } from "../../../model/warehouse-day";
import { quotedColumn } from "../bigquery-identifier";
import { tablePath } from "../bigquery-queries";
import { bigQueryType } from "../bigquery-types";

/**
 * Reads a day back from real BigQuery as canonical values, for the live
 * contract suite: every column is selected as text so nothing is rounded on
 * the way, then printed the way the source adapter prints it.
 */
export async function liveReadDay(
  client: BigQuery,
  project: string,
  { destination, filterColumn, day }: WarehouseDay,
  schema: TableSchema,
): Promise<Row[]> {
  const select = schema.columns.map(
    (column, index) => `${selectText(column.name, column.logicalType)} AS c${index}`,
  );
  const first = quotedColumn(schema.columns[0]?.name ?? "");
  const filter = quotedColumn(filterColumn);
  const [rows] = await client.query({
    query: `SELECT ${select.join(", ")} FROM ${tablePath(destination, project)} WHERE ${filter} >= @start AND ${filter} < @end ORDER BY ${first}`,
    params: {
      start: BigQuery.datetime(startOfDay(day)),
      end: BigQuery.datetime(startOfDay(addDays(day, 1))),
    },
  });
  return (rows as Record<string, string | null>[]).map((row) =>
    schema.columns.map((column, index) => fromText(row[`c${index}`] ?? null, column.logicalType)),
  );
}

function selectText(name: string, type: LogicalType): string {
  const c = quotedColumn(name);
  switch (type.kind) {
    case "float32":
    case "float64":
      return `FORMAT('%.17g', ${c})`;
    case "datetime":
      return type.zone === "utc"
        ? `FORMAT_TIMESTAMP('%Y-%m-%d %H:%M:%E6S', ${c}, 'UTC')`
        : `FORMAT_DATETIME('%Y-%m-%d %H:%M:%E6S', ${c})`;
    case "json":
      return `TO_JSON_STRING(${c})`;
    case "bytes":
    case "geometry":
      return `TO_BASE64(${c})`;
    default:
      return `CAST(${c} AS STRING)`;
  }
}

function fromText(text: string | null, type: LogicalType): unknown {
  if (text === null) return null;
  switch (type.kind) {
    case "int32":
    case "year":
    case "float32":
    case "float64":
      return Number(text);
    case "decimal":
      return bigQueryType(type) === "STRING" ? text : withScale(text, type.scale);
    case "datetime":
      return type.fractionDigits === 0 ? text.slice(0, 19) : text.slice(0, 20 + type.fractionDigits);
    case "json":
      return mysqlJsonSpacing(text);
    case "bytes":
    case "geometry":
      return Uint8Array.from(Buffer.from(text, "base64"));
    default:
      return text;
  }
}

/** BigQuery prints NUMERIC without trailing zeros; MySQL prints DECIMAL(p,s) with s digits. */
function withScale(text: string, scale: number): string {
  const [whole, fraction = ""] = text.split(".");
  return scale === 0 ? (whole ?? "") : `${whole}.${fraction.padEnd(scale, "0")}`;
}

/** `{"a":[1,2]}` -> `{"a": [1, 2]}`, MySQL's way of printing JSON, outside strings only. */
function mysqlJsonSpacing(text: string): string {
  let out = "";
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    out += char;
    if (inString) {
      if (char === "\\") out += text[++index] ?? "";
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "," || char === ":") out += " ";
  }
  return out;
}
