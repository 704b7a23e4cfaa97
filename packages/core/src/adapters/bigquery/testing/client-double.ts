import { Writable } from "node:stream";
import type { JobLoadMetadata, TableMetadata } from "@google-cloud/bigquery";
import type {
  BigQueryClient,
  BigQueryLoadJob,
  BigQueryNextPage,
  BigQueryPaging,
  BigQueryQueryOptions,
} from "../bigquery-client";

/** One call the adapter made; `target` is `project.dataset[.table]` where the call has one. */
export interface DoubleCall {
  readonly method:
    | "query"
    | "getQueryResults"
    | "createDataset"
    | "createTable"
    | "getMetadata"
    | "setMetadata"
    | "upload";
  readonly target: string;
  readonly argument?: unknown;
}

/** One load upload: what was written, and whether it was ended (a job) or destroyed (none). */
export interface DoubleUpload {
  readonly target: string;
  readonly metadata: JobLoadMetadata;
  text: string;
  ended: boolean;
  destroyed: boolean;
}

/** A page of a paged query's rows, the way to the next page (null after the last), the API response. */
type PagedAnswer = [unknown[], BigQueryNextPage | null, unknown];

type Arranged = { readonly value: unknown } | { readonly error: unknown };

/** How the double answers what no test arranged. */
export interface DoubleFallbacks {
  /** Rows of a query (default: none). */
  readonly query?: (options: BigQueryQueryOptions) => unknown[];
  /** The job of an ended upload (default: one output row per line); a throw fails the job. */
  readonly load?: (upload: DoubleUpload) => BigQueryLoadJob;
}

/** The shape of @google-cloud/common's ApiError that the adapter's error mapping reads. */
export function apiError(code: number | undefined, reason: string, message = reason): Error {
  return Object.assign(new Error(message), { code, errors: [{ reason, message }] });
}

/**
 * A double of BigQueryClient: it records every call and answers what the test
 * arranged, in order per method (`answer`, `fail`). Unarranged, queries and
 * uploads answer as `fallbacks` say, and table metadata is what `tables`
 * holds (createTable and setMetadata write it; missing tables and datasets
 * answer 404). It runs no SQL.
 */
export function bigQueryDouble(fallbacks: DoubleFallbacks = {}) {
  const calls: DoubleCall[] = [];
  const uploads: DoubleUpload[] = [];
  const tables = new Map<string, TableMetadata>();
  const datasets = new Set<string>();
  const arranged = new Map<DoubleCall["method"], Arranged[]>();

  /** The arranged outcome of the next `method` call, else `fallback`'s. */
  async function outcome<T>(call: DoubleCall, fallback: () => T): Promise<T> {
    calls.push(call);
    const next = arranged.get(call.method)?.shift();
    if (!next) return fallback();
    if ("error" in next) throw next.error;
    return next.value as T;
  }

  function upload(target: string, metadata: JobLoadMetadata): Writable {
    const record: DoubleUpload = { target, metadata, text: "", ended: false, destroyed: false };
    uploads.push(record);
    calls.push({ method: "upload", target, argument: metadata });
    const next = arranged.get("upload")?.shift();
    const stream: Writable = new Writable({
      write(chunk: Buffer, _encoding, done) {
        record.text += chunk.toString("utf8");
        done();
      },
      final(done) {
        record.ended = true;
        done();
        // The job finishes after the upload: a failure then is the job's.
        setImmediate(() => {
          try {
            if (next && "error" in next) throw next.error;
            stream.emit("complete", next ? next.value : (fallbacks.load ?? countLines)(record));
          } catch (error) {
            stream.emit("error", error);
          }
        });
      },
      destroy(error, done) {
        record.destroyed = true;
        done(error);
      },
    });
    return stream;
  }

  /**
   * A query read with paging, as the library answers it: the first `maxResults`
   * rows and a `nextQuery` whose job's getQueryResults answers the next ones
   * (each call recorded), null after the last page.
   */
  function paged(rows: readonly unknown[], from: number, { maxResults }: BigQueryPaging): PagedAnswer {
    const end = from + maxResults;
    const next: BigQueryNextPage | null =
      end < rows.length
        ? {
            pageToken: String(end),
            job: {
              getQueryResults: (request: BigQueryNextPage & BigQueryPaging): Promise<PagedAnswer> =>
                outcome({ method: "getQueryResults", target: "", argument: request }, () =>
                  paged(rows, Number(request.pageToken), request),
                ),
            },
          }
        : null;
    return [rows.slice(from, end), next, {}];
  }

  const client: BigQueryClient = {
    query: async (options: BigQueryQueryOptions, paging?: BigQueryPaging) => {
      const call: DoubleCall = {
        method: "query",
        target: "",
        argument: paging ? { ...options, paging } : options,
      };
      const answer = await outcome(call, () => [fallbacks.query?.(options) ?? []] as [unknown[]]);
      return paging ? paged(answer[0], 0, paging) : answer;
    },
    createDataset: (id, { projectId }) =>
      outcome({ method: "createDataset", target: `${projectId}.${id}` }, () => {
        if (datasets.has(`${projectId}.${id}`)) throw apiError(409, "duplicate");
        datasets.add(`${projectId}.${id}`);
      }),
    dataset: (datasetId, { projectId }) => {
      const dataset = `${projectId}.${datasetId}`;
      return {
        createTable: (id, metadata) =>
          outcome({ method: "createTable", target: `${dataset}.${id}`, argument: metadata }, () => {
            if (!datasets.has(dataset)) throw apiError(404, "notFound", `Not found: Dataset ${dataset}`);
            if (tables.has(`${dataset}.${id}`)) throw apiError(409, "duplicate");
            tables.set(`${dataset}.${id}`, metadata);
          }),
        table: (id) => {
          const target = `${dataset}.${id}`;
          return {
            getMetadata: () =>
              outcome({ method: "getMetadata", target }, () => {
                const metadata = tables.get(target);
                if (!metadata) throw apiError(404, "notFound", `Not found: Table ${target}`);
                return [metadata] as [TableMetadata];
              }),
            setMetadata: (metadata) =>
              outcome({ method: "setMetadata", target, argument: metadata }, () => {
                tables.set(target, { ...tables.get(target), ...metadata });
              }),
            createWriteStream: (metadata) => upload(target, metadata),
          };
        },
      };
    },
  };

  return {
    client,
    calls,
    uploads,
    tables,
    datasets,
    /**
     * The next `method` call resolves to `value` (for a query: `[rows]`, paged
     * as asked; for an upload: the finished job).
     */
    answer(method: DoubleCall["method"], value: unknown): void {
      arranged.set(method, [...(arranged.get(method) ?? []), { value }]);
    },
    /** The next `method` call fails with `error` (for an upload: the job does). */
    fail(method: DoubleCall["method"], error: unknown): void {
      arranged.set(method, [...(arranged.get(method) ?? []), { error }]);
    },
    /** The calls of `method`, in order. */
    callsOf(method: DoubleCall["method"]): DoubleCall[] {
      return calls.filter((call) => call.method === method);
    },
  };
}

export type BigQueryDouble = ReturnType<typeof bigQueryDouble>;

function countLines(upload: DoubleUpload): BigQueryLoadJob {
  const lines = upload.text.split("\n").filter(Boolean).length;
  return { id: "job_1", metadata: { statistics: { load: { outputRows: String(lines) } } } };
}
