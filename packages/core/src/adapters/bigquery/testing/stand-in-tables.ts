import { acceptsValue, dayOf } from "./stand-in-values";

export interface StandInField {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
  readonly description?: string;
}

export interface StandInTable {
  readonly id: string;
  fields: StandInField[];
  readonly timePartitioning?: { readonly type: string; readonly field?: string };
  /** Rows by partition id (`20240131`), parsed and as uploaded. */
  readonly partitions: Map<string, StoredRow[]>;
}

/** One loaded row: its values for checks and queries, its NDJSON line for exact reads. */
export interface StoredRow {
  readonly values: Record<string, unknown>;
  readonly line: string;
}

export interface JobError {
  readonly reason: string;
  readonly message: string;
}

/** What a load job asked for, from its `configuration.load`. */
export interface LoadRequest {
  readonly tableId: string;
  readonly partition: string | undefined;
  readonly writeDisposition?: string;
  readonly schemaFields: readonly StandInField[];
  readonly schemaUpdateOptions: readonly string[];
}

/** Consumes one upload's NDJSON and applies it as BigQuery would, or reports why not. */
export interface LoadSession {
  push(chunk: Buffer): void;
  finish(): { readonly outputRows: number } | { readonly errors: readonly JobError[] };
}

const MAX_ERRORS = 5;

/**
 * A load job's effect on a table held in memory: schema additions, the
 * partition check, value checks, and WRITE_TRUNCATE of one partition.
 */
export function startLoad(table: StandInTable | undefined, request: LoadRequest): LoadSession {
  const refusal = table ? schemaRefusal(table, request) : notFound(request.tableId);
  const fields = new Map(
    [...(table?.fields ?? []), ...request.schemaFields].map((f) => [f.name.toLowerCase(), f]),
  );
  const partitionField = table?.timePartitioning?.field;
  const errors: JobError[] = refusal ? [refusal] : [];
  const rows: StoredRow[] = [];
  let carry = "";
  let count = 0;
  let position = 0;

  const readLine = (line: string) => {
    const at = position;
    position += Buffer.byteLength(line) + 1;
    count++;
    if (errors.length >= MAX_ERRORS || line === "") return;
    const problem = checkRow(line, fields, partitionField, request.partition, (values) =>
      rows.push({ values, line }),
    );
    if (problem)
      errors.push({
        reason: "invalid",
        message: `JSON parsing error in row starting at position ${at}: ${problem}`,
      });
  };

  return {
    push(chunk) {
      const lines = (carry + chunk.toString("utf8")).split("\n");
      carry = lines.pop() ?? "";
      for (const line of lines) readLine(line);
    },
    finish() {
      if (carry !== "") readLine(carry);
      if (errors.length > 0) return { errors: withSummary(errors, count) };
      if (table) {
        applySchema(table, request);
        const key = request.partition ?? "__UNPARTITIONED__";
        const kept = request.writeDisposition === "WRITE_TRUNCATE" ? [] : (table.partitions.get(key) ?? []);
        table.partitions.set(key, [...kept, ...rows]);
      }
      return { outputRows: count };
    },
  };
}

function checkRow(
  line: string,
  fields: ReadonlyMap<string, StandInField>,
  partitionField: string | undefined,
  partition: string | undefined,
  keep: (row: Record<string, unknown>) => void,
): string | undefined {
  let row: Record<string, unknown>;
  try {
    row = JSON.parse(line);
  } catch (error) {
    return `Parser terminated before end of string (${(error as Error).message})`;
  }
  for (const [name, value] of Object.entries(row)) {
    const field = fields.get(name.toLowerCase());
    if (!field) return `No such field: ${name}.`;
    if (!acceptsValue(field.type, value)) {
      return `Could not convert value '${JSON.stringify(value)}' to ${field.type}. Field: ${name}; Value: ${JSON.stringify(value)}`;
    }
  }
  if (partition && partitionField) {
    const day = dayOf(row[partitionField])?.replaceAll("-", "");
    if (day !== partition) {
      return `The destination table's partition ${partition} does not match the value of ${partitionField} (${String(row[partitionField])}).`;
    }
  }
  keep(row);
  return undefined;
}

function withSummary(errors: readonly JobError[], rows: number): JobError[] {
  return [
    {
      reason: "invalid",
      message: `Error while reading data, error message: JSON table encountered too many errors, giving up. Rows: ${rows}; errors: ${errors.length}. Please look into the errors[] collection for more details.`,
    },
    ...errors,
  ];
}

function notFound(tableId: string): JobError {
  return { reason: "notFound", message: `Not found: Table ${tableId}` };
}

function schemaRefusal(table: StandInTable, request: LoadRequest): JobError | undefined {
  const existing = new Map(table.fields.map((f) => [f.name.toLowerCase(), f]));
  for (const field of request.schemaFields) {
    const current = existing.get(field.name.toLowerCase());
    if (!current && !request.schemaUpdateOptions.includes("ALLOW_FIELD_ADDITION")) {
      return {
        reason: "invalid",
        message: `Provided Schema does not match Table ${table.id}. Cannot add fields (field: ${field.name})`,
      };
    }
    if (current && current.type.toUpperCase() !== field.type.toUpperCase()) {
      return {
        reason: "invalid",
        message: `Provided Schema does not match Table ${table.id}. Field ${field.name} has changed type from ${current.type} to ${field.type}`,
      };
    }
  }
  return undefined;
}

function applySchema(table: StandInTable, request: LoadRequest): void {
  const names = new Set(table.fields.map((f) => f.name.toLowerCase()));
  table.fields = [...table.fields, ...request.schemaFields.filter((f) => !names.has(f.name.toLowerCase()))];
}

/** Every row of the table, in partition order. */
export function allRows(table: StandInTable): StoredRow[] {
  return [...table.partitions.values()].flat();
}
