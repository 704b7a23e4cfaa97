import { randomUUID } from "node:crypto";
import { answerQuery } from "./stand-in-queries";
import type { JobError, StandInField, StandInTable } from "./stand-in-tables";

/** An HTTP answer: status and JSON body (204 has none). */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
}

/** What the stand-in holds, shared by the JSON routes and the upload route. */
export interface StandInState {
  readonly tables: Map<string, StandInTable>;
  readonly datasets: Map<string, { readonly location: string | undefined }>;
  readonly jobs: Map<string, Record<string, unknown>>;
}

interface DatasetBody {
  readonly datasetReference?: { readonly datasetId?: string };
  readonly location?: string;
}
interface TableBody {
  readonly tableReference?: { readonly tableId?: string };
  readonly schema?: { readonly fields?: StandInField[] };
  readonly timePartitioning?: StandInTable["timePartitioning"];
}
interface QueryBody {
  readonly query?: string;
  readonly location?: string;
  readonly queryParameters?: readonly { name: string; parameterValue?: { value?: string } }[];
}

/** BigQuery's error body: `{"error":{"code","message","errors":[{reason,message}]}}`. */
export function errorReply(status: number, errors: readonly JobError[]): Reply {
  const message = errors[0]?.message ?? `HTTP ${status}`;
  return {
    status,
    body: { error: { code: status, message, errors: errors.map((e) => ({ ...e, domain: "global" })) } },
  };
}

const notFound = (message: string) => errorReply(404, [{ reason: "notFound", message }]);

/** Answers a JSON API request; `path` is relative to `/bigquery/v2`. */
export function routeRequest(state: StandInState, method: string, path: string, body: unknown): Reply {
  const parts = path.split("/").filter(Boolean);
  const [, project = "", collection, dataset = "", sub, table = ""] = parts;
  if (collection === "queries" && method === "POST") return query(state, project, body as QueryBody);
  if (collection === "jobs" && method === "GET") {
    const job = state.jobs.get(parts[3] ?? "");
    return job ? { status: 200, body: job } : notFound(`Not found: Job ${parts[3]}`);
  }
  if (collection !== "datasets") return notFound(`no route ${path}`);
  if (parts.length === 3 && method === "POST") return createDataset(state, project, body as DatasetBody);
  const datasetKey = `${project}.${dataset}`;
  const found = state.datasets.get(datasetKey);
  if (!found) return notFound(`Not found: Dataset ${project}:${dataset}`);
  if (parts.length === 4 && method === "GET") {
    return { status: 200, body: { datasetReference: { projectId: project, datasetId: dataset }, ...found } };
  }
  if (sub !== "tables") return notFound(`no route ${path}`);
  if (parts.length === 5 && method === "POST") return createTable(state, project, dataset, body as TableBody);
  const [tableId = "", partition] = table.split("$");
  const key = `${datasetKey}.${tableId}`;
  const current = state.tables.get(key);
  if (!current) return notFound(`Not found: Table ${project}:${dataset}.${tableId}`);
  const reference = { projectId: project, datasetId: dataset, tableId };
  if (method === "GET") return { status: 200, body: tableResource(reference, current) };
  if (method === "DELETE") {
    if (partition) current.partitions.delete(partition);
    else state.tables.delete(key);
    return { status: 204 };
  }
  if (method === "PATCH") return patchTable(current, reference, body as TableBody);
  return errorReply(405, [{ reason: "invalid", message: `${method} ${path} is not supported` }]);
}

function createDataset(state: StandInState, project: string, body: DatasetBody): Reply {
  const id = body.datasetReference?.datasetId;
  const key = `${project}.${id}`;
  if (state.datasets.has(key)) {
    return errorReply(409, [{ reason: "duplicate", message: `Already Exists: Dataset ${project}:${id}` }]);
  }
  state.datasets.set(key, { location: body.location });
  return {
    status: 200,
    body: { datasetReference: { projectId: project, datasetId: id }, location: body.location },
  };
}

function createTable(state: StandInState, project: string, dataset: string, body: TableBody): Reply {
  const tableId = body.tableReference?.tableId ?? "";
  const key = `${project}.${dataset}.${tableId}`;
  if (state.tables.has(key)) {
    return errorReply(409, [
      { reason: "duplicate", message: `Already Exists: Table ${project}:${dataset}.${tableId}` },
    ]);
  }
  const table: StandInTable = {
    id: `${project}:${dataset}.${tableId}`,
    fields: body.schema?.fields ?? [],
    ...(body.timePartitioning ? { timePartitioning: body.timePartitioning } : {}),
    partitions: new Map(),
  };
  state.tables.set(key, table);
  return { status: 200, body: tableResource({ projectId: project, datasetId: dataset, tableId }, table) };
}

/** A patch may add columns; like BigQuery it refuses to drop or retype one. */
function patchTable(table: StandInTable, reference: object, body: TableBody): Reply {
  const fields = body.schema?.fields ?? table.fields;
  const kept = table.fields.every((old) => fields.some((f) => f.name === old.name && f.type === old.type));
  if (!kept)
    return errorReply(400, [
      { reason: "invalid", message: `Provided Schema does not match Table ${table.id}.` },
    ]);
  table.fields = fields;
  return { status: 200, body: tableResource(reference, table) };
}

function query(state: StandInState, project: string, body: QueryBody): Reply {
  const params = Object.fromEntries(
    (body.queryParameters ?? []).map((p) => [p.name, p.parameterValue?.value ?? ""]),
  );
  const answer = answerQuery(body.query ?? "", params, (path) => state.tables.get(path));
  if ("notFound" in answer)
    return notFound(`Not found: Table ${answer.notFound} was not found in location ${body.location}`);
  if ("invalid" in answer) return errorReply(400, [{ reason: "invalidQuery", message: answer.invalid }]);
  return {
    status: 200,
    body: {
      kind: "bigquery#queryResponse",
      jobComplete: true,
      jobReference: { projectId: project, jobId: `query_${randomUUID()}`, location: body.location },
      schema: { fields: answer.columns.map((name) => ({ name, type: "STRING", mode: "NULLABLE" })) },
      rows: answer.rows.map((row) => ({ f: row.map((v) => ({ v })) })),
      totalRows: String(answer.rows.length),
    },
  };
}

function tableResource(reference: object, table: StandInTable) {
  return {
    kind: "bigquery#table",
    id: table.id,
    tableReference: reference,
    schema: { fields: table.fields },
    timePartitioning: table.timePartitioning,
    type: "TABLE",
    numRows: String([...table.partitions.values()].reduce((sum, rows) => sum + rows.length, 0)),
  };
}
