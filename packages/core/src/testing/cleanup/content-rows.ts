import { fx } from "./file-fixture";

/** Every row of `table`, every column, in a stable order (the table's own rows as MySQL holds them). */
export async function rowsOf(table: string, orderBy = "created_at, id"): Promise<Record<string, unknown>[]> {
  return fx.query<Record<string, unknown>>(`SELECT * FROM \`${table}\` ORDER BY ${orderBy}`);
}
