/**
 * How a row becomes a hash value. The pool decodes values canonically
 * (createMysqlPool): DECIMAL, BIGINT and dates arrive as strings, JSON columns
 * as their text, so nothing is rounded. Binary values (BINARY, BLOB, BIT)
 * arrive as bytes and are written as base64; NULL stays null.
 */
export function rowJson(columns: readonly string[], row: readonly unknown[]): string {
  const document: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) document[columns[i] as string] = jsonValue(row[i]);
  return JSON.stringify(document);
}

/**
 * The hash field of a row: the key value as text, or for a key of several
 * columns the JSON array of their texts (`["7","2024-01-01"]`), which cannot
 * collide the way joined strings could.
 */
export function fieldName(row: readonly unknown[], keyIndexes: readonly number[]): string {
  if (keyIndexes.length === 1) return keyText(row[keyIndexes[0] as number]);
  return JSON.stringify(keyIndexes.map((index) => keyText(row[index])));
}

function jsonValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString("base64");
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  return value;
}

function keyText(value: unknown): string {
  if (value === null || value === undefined) return "";
  const json = jsonValue(value);
  return typeof json === "string" ? json : String(json);
}
