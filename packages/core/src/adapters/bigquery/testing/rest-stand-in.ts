import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MultipartReader, multipartBoundary } from "./multipart-reader";
import { errorReply, type Reply, routeRequest, type StandInState } from "./stand-in-routes";
import {
  type JobError,
  type LoadSession,
  type StandInField,
  type StandInTable,
  startLoad,
} from "./stand-in-tables";

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
  /** Rows the load job reported (0 until it finished). */
  outputRows: number;
  /** False while (or when) the closing boundary has not arrived: no job exists then. */
  complete: boolean;
}

export interface BigQueryStandIn extends Pick<StandInState, "tables" | "datasets"> {
  /** The `apiEndpoint` to give the client: `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly uploads: RecordedUpload[];
  /** The next request matching `method` and `path` is answered with this error (uploads after their body). */
  failNext(method: string, path: RegExp, status: number, errors: readonly JobError[]): void;
  /** The next load job is accepted but ends DONE with these errors. */
  failNextJob(errors: readonly JobError[]): void;
  close(): Promise<void>;
}

interface Fault {
  readonly method: string;
  readonly path: RegExp;
  readonly reply: Reply;
}

/**
 * A local HTTP stand-in for the parts of the BigQuery REST API the warehouse
 * adapter uses (datasets, tables, multipart load uploads, jobs, jobs.query).
 * The real client library talks to it through `apiEndpoint`; it records what
 * the library sends, applies loads to tables held in memory (WRITE_TRUNCATE of
 * one partition, value checks, schema additions), answers the adapter's own
 * queries, and plays back errors. A load answers RUNNING and reports DONE on
 * the first poll, so clients must wait for the job. With `keepRows: false`
 * uploads are only counted (benchmarks). It checks the adapter's requests; it
 * is not BigQuery.
 */
export async function startBigQueryStandIn(options: { keepRows?: boolean } = {}): Promise<BigQueryStandIn> {
  const keepRows = options.keepRows ?? true;
  const state: StandInState = { tables: new Map(), datasets: new Map(), jobs: new Map() };
  const requests: RecordedRequest[] = [];
  const uploads: RecordedUpload[] = [];
  const faults: Fault[] = [];
  const jobFaults: (readonly JobError[])[] = [];

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
    readJson(request).then(
      (body) => {
        record(body);
        send(
          response,
          fault?.reply ?? routeRequest(state, method, path.replace(/^\/bigquery\/v2/, ""), body),
        );
      },
      (error: unknown) => send(response, errorReply(400, [{ reason: "invalid", message: String(error) }])),
    );
  });

  /** Streams a multipart upload into a load session; answers once the body is complete. */
  function receiveUpload(request: IncomingMessage, answer: (reply: Reply) => void): void {
    const upload: RecordedUpload = { metadata: {}, text: "", outputRows: 0, complete: false };
    uploads.push(upload);
    let session: LoadSession | undefined;
    const reader = new MultipartReader(multipartBoundary(request.headers["content-type"]) ?? "", {
      onMetadata(metadata) {
        upload.metadata = metadata as UploadedJob;
        session = startLoadFor(upload.metadata);
      },
      onData(chunk) {
        if (keepRows) upload.text += chunk.toString("utf8");
        session?.push(chunk);
      },
      onEnd() {
        upload.complete = true;
      },
    });
    request.on("data", (chunk: Buffer) => reader.push(chunk));
    request.on("end", () => {
      if (!reader.complete || !session) {
        answer(errorReply(400, [{ reason: "invalid", message: "incomplete multipart upload" }]));
        return;
      }
      const injected = jobFaults.shift();
      const outcome = injected ? { errors: injected } : session.finish();
      const errors = "errors" in outcome ? outcome.errors : undefined;
      upload.outputRows = "outputRows" in outcome ? outcome.outputRows : 0;
      const reference = upload.metadata.jobReference ?? {};
      const job = {
        kind: "bigquery#job",
        id: `${reference.projectId}:${reference.location}.${reference.jobId}`,
        jobReference: reference,
        configuration: upload.metadata.configuration,
        status: errors ? { state: "DONE", errorResult: errors[0], errors } : { state: "DONE" },
        statistics: errors ? {} : { load: { outputRows: String(upload.outputRows), inputFiles: "1" } },
      };
      state.jobs.set(String(reference.jobId), job);
      answer({ status: 200, body: { ...job, status: { state: "RUNNING" }, statistics: {} } });
    });
  }

  function startLoadFor(metadata: UploadedJob): LoadSession {
    const load = (metadata.configuration?.load ?? {}) as {
      destinationTable?: { projectId?: string; datasetId?: string; tableId?: string };
      writeDisposition?: string;
      schema?: { fields?: StandInField[] };
      schemaUpdateOptions?: string[];
    };
    const target = load.destinationTable ?? {};
    const [tableId = "", partition] = String(target.tableId).split("$");
    const table: StandInTable | undefined = state.tables.get(
      `${target.projectId}.${target.datasetId}.${tableId}`,
    );
    return startLoad(
      table,
      {
        tableId: `${target.projectId}:${target.datasetId}.${tableId}`,
        partition,
        writeDisposition: load.writeDisposition,
        schemaFields: load.schema?.fields ?? [],
        schemaUpdateOptions: load.schemaUpdateOptions ?? [],
      },
      keepRows,
    );
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    uploads,
    tables: state.tables,
    datasets: state.datasets,
    failNext(method, path, status, errors) {
      faults.push({ method, path, reply: errorReply(status, errors) });
    },
    failNextJob(errors) {
      jobFaults.push(errors);
    },
    close() {
      // Uploads a client abandoned stay open until the server closes them.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("error", reject);
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text === "" ? undefined : JSON.parse(text));
      } catch (error) {
        reject(error);
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
