import type { LogicalType } from "../../../model/logical-type";
import type { Row, TableSchema } from "../../../model/table-schema";

/**
 * Reads one NDJSON line the encoder wrote back into canonical values, without
 * JSON.parse on the whole line (a JSON column is embedded as written and must
 * come back as that text). The inverse of createNdjsonEncoder: tests use it to
 * show that what was uploaded still holds every value exactly.
 */
export function decodeNdjsonRow(line: string, schema: TableSchema): Row {
  const raw = topLevelValues(line);
  return schema.columns.map((column) => {
    const text = raw.get(column.name);
    if (text === undefined) return null;
    return decodeValue(text, column.logicalType);
  });
}

function decodeValue(text: string, type: LogicalType): unknown {
  if (type.kind === "json") return text;
  if (text === "null") return null;
  switch (type.kind) {
    case "int32":
    case "year":
    case "float32":
    case "float64":
      return Number(text);
    case "bytes":
    case "geometry":
      return Uint8Array.from(Buffer.from(JSON.parse(text) as string, "base64"));
    case "datetime":
      return type.zone === "utc" ? (JSON.parse(text) as string).replace(/\+00:00$/, "") : JSON.parse(text);
    default:
      return JSON.parse(text);
  }
}

/** The raw text of each top-level value of a JSON object, by key. */
function topLevelValues(line: string): Map<string, string> {
  const values = new Map<string, string>();
  let index = 1;
  while (index < line.length && line[index] !== "}") {
    const keyEnd = stringEnd(line, index);
    const key = JSON.parse(line.slice(index, keyEnd)) as string;
    const start = keyEnd + 1;
    const end = valueEnd(line, start);
    values.set(key, line.slice(start, end));
    index = line[end] === "," ? end + 1 : end;
  }
  return values;
}

/** Index just past the JSON string that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (text[index] !== '"') index += text[index] === "\\" ? 2 : 1;
  return index + 1;
}

/** Index of the `,` or `}` that ends the value starting at `start`. */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < text.length) {
    const char = text[index];
    if (char === '"') {
      index = stringEnd(text, index);
      continue;
    }
    if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      if (depth === 0) return index;
      depth--;
    } else if (char === "," && depth === 0) return index;
    index++;
  }
  return index;
}
