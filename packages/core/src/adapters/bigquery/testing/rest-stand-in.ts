import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MultipartReader, multipartBoundary } from "./multipart-reader";

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string, percent-decoded. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/** The job resource an upload's first part carries, as far as tests read it. */
export interface UploadedJob {
  readonly jobReference?: {
    readonly jobId?: string;
    readonly projectId?: string;
    readonly location?: string;
  };
  readonly configuration?: { readonly load?: Record<string, unknown> };
}

export interface RecordedUpload {
  metadata: UploadedJob;
  /** The uploaded NDJSON (only when rows are kept). */
  text: string;
  /** Lines received: the job's output rows. */
  lines: number;
  /** False while (or when) the closing boundary has not arrived: no job exists then. */
  complete: boolean;
}

export interface JobError {
  readonly reason: string;
  readonly message: string;
}

export interface BigQueryStandIn {
  /** The `apiEndpoint` to give the client: `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly uploads: RecordedUpload[];
  /** Table resources as created and patched, by `project.dataset.table`. */
  readonly tables: Map<string, Record<string, unknown>>;
  /**
   * The next query is answered with these rows (every value text); unarranged,
   * a query has none. A query or page request with `maxResults` gets that many
   * and a pageToken, which a later `GET .../queries/<job>` reads on from.
   */
  answerQuery(rows: readonly Readonly<Record<string, string | null>>[]): void;
  /** The next request matching `method` and `path` is answered with this error (uploads after their body). */
  failNext(method: string, path: RegExp, status: number, errors: readonly JobError[]): void;
  /** The next load job is accepted but ends DONE with these errors. */
  failNextJob(errors: readonly JobError[]): void;
  close(): Promise<void>;
}

interface Reply {
  readonly status: number;
  readonly body?: unknown;
}

/** BigQuery's error body: `{"error":{"code","message","errors":[{reason,message}]}}`. */
function errorReply(status: number, errors: readonly JobError[]): Reply {
  const message = errors[0]?.message ?? `HTTP ${status}`;
  return {
    status,
    body: { error: { code: status, message, errors: errors.map((e) => ({ ...e, domain: "global" })) } },
  };
}

const notFound = (what: string) => errorReply(404, [{ reason: "notFound", message: `Not found: ${what}` }]);

/**
 * A local HTTP stand-in for the BigQuery REST API, to check what the real
 * client library sends: it records every request and upload and answers with
 * what the test arranged. It keeps only what the client needs to go on:
 * datasets and table resources as created and patched (404 before), jobs
 * that answer RUNNING and report DONE on the first poll with one output row
 * per uploaded line. Queries get arranged rows; it runs no SQL. With
 * `keepRows: false` uploads are only counted (benchmarks).
 */
export async function startBigQueryStandIn(options: { keepRows?: boolean } = {}): Promise<BigQueryStandIn> {
  const keepRows = options.keepRows ?? true;
  const requests: RecordedRequest[] = [];
  const uploads: RecordedUpload[] = [];
  const tables = new Map<string, Record<string, unknown>>();
  const datasets = new Set<string>();
  const jobs = new Map<string, unknown>();
  const answers: (readonly Readonly<Record<string, string | null>>[])[] = [];
  /** Rows of a query not yet read, by the pageToken that reads on. */
  const unread = new Map<string, readonly Readonly<Record<string, string | null>>[]>();
  const faults: { method: string; path: RegExp; reply: Reply }[] = [];
  const jobFaults: (readonly JobError[])[] = [];

  function route(
    method: string,
    path: string,
    body: Record<string, unknown> | undefined,
    search: URLSearchParams,
  ): Reply {
    const [, project = "", collection, dataset = "", , table = ""] = path.split("/").filter(Boolean);
    if (collection === "queries") {
      // POST .../queries runs one; GET .../queries/<job> reads a page of one (`dataset` is the job then).
      const token = search.get("pageToken");
      const rows = (token !== null ? unread.get(token) : undefined) ?? answers.shift() ?? [];
      if (token !== null) unread.delete(token);
      const max = Number(body?.maxResults ?? search.get("maxResults") ?? Number.POSITIVE_INFINITY);
      const next = rows.length > max ? `page_${randomUUID()}` : undefined;
      if (next) unread.set(next, rows.slice(max));
      return queryReply(project, dataset || `query_${randomUUID()}`, rows.slice(0, max), next);
    }
    if (collection === "jobs")
      return jobs.has(dataset) ? { status: 200, body: jobs.get(dataset) } : notFound(`Job ${dataset}`);
    const datasetKey = `${project}.${dataset}`;
    if (!dataset) {
      const id = (body?.datasetReference as { datasetId?: string } | undefined)?.datasetId;
      if (datasets.has(`${project}.${id}`))
        return errorReply(409, [{ reason: "duplicate", message: "exists" }]);
      datasets.add(`${project}.${id}`);
      return { status: 200, body };
    }
    if (!datasets.has(datasetKey)) return notFound(`Dataset ${datasetKey}`);
    const tableId = table || String((body?.tableReference as { tableId?: string } | undefined)?.tableId);
    const key = `${datasetKey}.${tableId}`;
    if (method === "POST") {
      if (tables.has(key)) return errorReply(409, [{ reason: "duplicate", message: "exists" }]);
      tables.set(key, body ?? {});
    } else if (method === "PATCH" && tables.has(key)) {
      tables.set(key, { ...tables.get(key), ...body });
    }
    return tables.has(key) ? { status: 200, body: tables.get(key) } : notFound(`Table ${key}`);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const method = request.method ?? "GET";
    const path = decodeURIComponent(url.pathname);
    const index = faults.findIndex((f) => f.method === method && f.path.test(path));
    const fault = index >= 0 ? faults.splice(index, 1)[0] : undefined;
    const record = (body: unknown) =>
      requests.push({
        method,
        path,
        query: Object.fromEntries(url.searchParams),
        authorization: request.headers.authorization,
        body,
      });
    if (path.startsWith("/upload/")) {
      record(undefined);
      receiveUpload(request, (reply) => send(response, fault?.reply ?? reply));
      return;
    }
    readJson(request).then((body) => {
      record(body);
      send(
        response,
        fault?.reply ?? route(method, path.replace(/^\/bigquery\/v2/, ""), body, url.searchParams),
      );
    });
  });

  /** Reads a multipart upload as it arrives; answers RUNNING once the body is complete. */
  function receiveUpload(request: IncomingMessage, answer: (reply: Reply) => void): void {
    const upload: RecordedUpload = { metadata: {}, text: "", lines: 0, complete: false };
    uploads.push(upload);
    const reader = new MultipartReader(multipartBoundary(request.headers["content-type"]) ?? "", {
      onMetadata: (metadata) => {
        upload.metadata = metadata as UploadedJob;
      },
      onData(chunk) {
        if (keepRows) upload.text += chunk.toString("utf8");
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) upload.lines++;
      },
      onEnd: () => {
        upload.complete = true;
      },
    });
    request.on("data", (chunk: Buffer) => reader.push(chunk));
    request.on("end", () => {
      if (!reader.complete) {
        answer(errorReply(400, [{ reason: "invalid", message: "incomplete multipart upload" }]));
        return;
      }
      const errors = jobFaults.shift();
      const reference = upload.metadata.jobReference ?? {};
      const job = {
        jobReference: reference,
        configuration: upload.metadata.configuration,
        status: errors ? { state: "DONE", errorResult: errors[0], errors } : { state: "DONE" },
        statistics: errors ? {} : { load: { outputRows: String(upload.lines) } },
      };
      jobs.set(String(reference.jobId), job);
      answer({ status: 200, body: { ...job, status: { state: "RUNNING" }, statistics: {} } });
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    uploads,
    tables,
    answerQuery: (rows) => answers.push(rows),
    failNext: (method, path, status, errors) =>
      faults.push({ method, path, reply: errorReply(status, errors) }),
    failNextJob: (errors) => jobFaults.push(errors),
    close() {
      // Uploads a client abandoned stay open until the server closes them.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A finished query's answer (or a page of it): every column STRING, as the adapter's queries select them. */
function queryReply(
  project: string,
  jobId: string,
  rows: readonly Readonly<Record<string, string | null>>[],
  pageToken: string | undefined,
): Reply {
  const columns = Object.keys(rows[0] ?? {});
  return {
    status: 200,
    body: {
      kind: "bigquery#queryResponse",
      jobComplete: true,
      jobReference: { projectId: project, jobId },
      schema: { fields: columns.map((name) => ({ name, type: "STRING", mode: "NULLABLE" })) },
      rows: rows.map((row) => ({ f: columns.map((c) => ({ v: row[c] })) })),
      totalRows: String(rows.length),
      ...(pageToken ? { pageToken } : {}),
    },
  };
}

function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text === "" ? undefined : JSON.parse(text));
      } catch {
        resolve({ unreadable: text });
      }
    });
  });
}

function send(response: ServerResponse, reply: Reply): void {
  if (reply.body === undefined) {
    response.writeHead(reply.status).end();
    return;
  }
  response
    .writeHead(reply.status, { "content-type": "application/json; charset=UTF-8" })
    .end(JSON.stringify(reply.body));
}
