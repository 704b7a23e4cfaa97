import { type DuckDBAppender, DuckDBDataChunk, DuckDBVector } from "@duckdb/node-api";
import { messageOf, RefusalError } from "../../errors";
import type { Row, TableSchema } from "../../model/table-schema";
import { type ValueEncoder, valueEncoder } from "./duckdb-types";

interface ColumnPlan {
  readonly name: string;
  /** Position of the column in a source row, or -1 when the source no longer has it. */
  readonly source: number;
  readonly encode: ValueEncoder;
}

/**
 * Appends canonical rows through a DuckDB appender, filling one data chunk
 * (DuckDB's vector size, 2048 rows) column by column and handing it over
 * whole: far fewer native calls than appending value by value. The chunk is
 * reused, so memory does not grow with the number of rows. Appending row by
 * row (the appender casting text to the column type) takes about 1.5 times as
 * long, staging text and casting with INSERT ... SELECT about twice as long,
 * and neither is exact (see canonical-values.ts).
 */
export class ChunkWriter {
  private readonly chunk: DuckDBDataChunk;
  private readonly capacity = DuckDBVector.standardSize();

  private constructor(
    private readonly appender: DuckDBAppender,
    private readonly columns: readonly ColumnPlan[],
    private readonly rowWidth: number,
    private readonly label: string,
  ) {
    this.chunk = DuckDBDataChunk.create(columns.map((_, index) => appender.columnType(index)));
  }

  /**
   * `tableColumns` are the warehouse table's column names in table order; each
   * takes the source column of the same name (case-insensitive, as in SQL),
   * or NULL when the source has no such column any more.
   */
  static create(
    appender: DuckDBAppender,
    tableColumns: readonly string[],
    schema: TableSchema,
    label: string,
  ): ChunkWriter {
    if (appender.columnCount !== tableColumns.length) {
      throw new Error(
        `${label}: the appender has ${appender.columnCount} columns, the table ${tableColumns.length}`,
      );
    }
    const sourceIndex = new Map(schema.columns.map((column, index) => [column.name.toLowerCase(), index]));
    const columns = tableColumns.map((name, index) => ({
      name,
      source: sourceIndex.get(name.toLowerCase()) ?? -1,
      encode: valueEncoder(appender.columnType(index)),
    }));
    return new ChunkWriter(appender, columns, schema.columns.length, label);
  }

  /** Appends `rows`; throws RefusalError naming the column of a value that cannot be stored exactly. */
  write(rows: readonly Row[]): void {
    for (const row of rows) {
      if (row.length !== this.rowWidth) {
        throw new RefusalError(
          `${this.label}: a row has ${row.length} values, the schema ${this.rowWidth} columns`,
        );
      }
    }
    for (let start = 0; start < rows.length; start += this.capacity) {
      const count = Math.min(this.capacity, rows.length - start);
      // reset() also drops the string heap of the previous chunk's VARCHAR/BLOB vectors.
      this.chunk.reset();
      this.chunk.rowCount = count;
      for (let index = 0; index < this.columns.length; index++) {
        this.fillColumn(index, rows, start, count);
      }
      this.appender.appendDataChunk(this.chunk);
    }
  }

  private fillColumn(index: number, rows: readonly Row[], start: number, count: number): void {
    const { source, encode, name } = this.columns[index] as ColumnPlan;
    const vector = this.chunk.getColumnVector(index);
    let offset = 0;
    let nulls = 0;
    try {
      for (; offset < count; offset++) {
        const value = source < 0 ? null : (rows[start + offset] as Row)[source];
        if (value == null) nulls++;
        else vector.setItem(offset, encode(value));
      }
    } catch (cause) {
      const value = (rows[start + offset] as Row)[source];
      const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
      const why = messageOf(cause);
      throw new RefusalError(`${this.label}: column ${name} cannot store ${shown} exactly (${why})`, {
        cause,
      });
    }
    // Nulls go last: the vector tracks validity cheaply only while it has seen no null.
    for (offset = 0; nulls > 0 && offset < count; offset++) {
      const value = source < 0 ? null : (rows[start + offset] as Row)[source];
      if (value == null) {
        vector.setItem(offset, null);
        nulls--;
      }
    }
    vector.flush();
  }
}
