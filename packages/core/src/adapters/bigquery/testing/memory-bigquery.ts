import { Writable } from "node:stream";
import type { TableMetadata } from "@google-cloud/bigquery";
import type { BigQueryClient, BigQueryLoadJob } from "../bigquery-client";
import { apiError } from "./client-double";
import { answerQuery } from "./stand-in-queries";
import { type JobError, type StandInField, type StandInTable, startLoad } from "./stand-in-tables";

/** What the in-memory stand-in holds: tables by `project.dataset.table`, datasets by `project.dataset`. */
export interface MemoryBigQuery {
  readonly client: BigQueryClient;
  readonly tables: Map<string, StandInTable>;
  readonly datasets: Set<string>;
}

/** A finished job's errors as the client library raises them (an ApiError built from the job's status). */
function jobError(errors: readonly JobError[]): Error {
  return Object.assign(new Error(errors.map((e) => e.message).join("; ")), { errors });
}

/**
 * A BigQueryClient held in memory, for the shared warehouse contract suite:
 * datasets and tables with their schema and DAY partitioning, load jobs
 * applied as BigQuery applies them (see startLoad: value checks, schema
 * additions, WRITE_TRUNCATE of one partition, all or nothing), and the
 * adapter's own queries answered over the loaded rows (see answerQuery, which
 * knows only those). It is not BigQuery: what BigQuery stores and prints only
 * the live suite shows.
 */
export function memoryBigQuery(): MemoryBigQuery {
  const tables = new Map<string, StandInTable>();
  const datasets = new Set<string>();

  const client: BigQueryClient = {
    async query({ query, params }) {
      const text = Object.fromEntries(
        Object.entries(params).map(([name, value]) => [
          name,
          String((value as { value?: unknown })?.value ?? value),
        ]),
      );
      const answer = answerQuery(query, text, (path) => tables.get(path));
      if ("notFound" in answer) throw apiError(404, "notFound", `Not found: Table ${answer.notFound}`);
      if ("invalid" in answer) throw apiError(400, "invalidQuery", answer.invalid);
      const rows = answer.rows.map((row) => Object.fromEntries(answer.columns.map((c, i) => [c, row[i]])));
      return [rows];
    },
    async createDataset(id, { projectId }) {
      if (datasets.has(`${projectId}.${id}`))
        throw apiError(409, "duplicate", `Already Exists: Dataset ${id}`);
      datasets.add(`${projectId}.${id}`);
    },
    dataset(datasetId, { projectId }) {
      const dataset = `${projectId}.${datasetId}`;
      return {
        async createTable(id, metadata) {
          if (!datasets.has(dataset)) throw apiError(404, "notFound", `Not found: Dataset ${dataset}`);
          if (tables.has(`${dataset}.${id}`)) throw apiError(409, "duplicate", `Already Exists: Table ${id}`);
          tables.set(`${dataset}.${id}`, {
            id: `${dataset}.${id}`,
            fields: (metadata.schema?.fields ?? []) as StandInField[],
            ...(metadata.timePartitioning
              ? { timePartitioning: metadata.timePartitioning as { type: string } }
              : {}),
            partitions: new Map(),
          });
        },
        table(tableId) {
          const [id = "", partition] = tableId.split("$");
          const key = `${dataset}.${id}`;
          const found = () => {
            const table = tables.get(key);
            if (!table) throw apiError(404, "notFound", `Not found: Table ${key}`);
            return table;
          };
          return {
            async getMetadata() {
              const { fields, timePartitioning } = found();
              return [{ schema: { fields: [...fields] }, timePartitioning } as TableMetadata];
            },
            async setMetadata(metadata) {
              const table = found();
              const fields = (metadata.schema?.fields ?? table.fields) as StandInField[];
              // Like BigQuery, a patch may add columns but neither drop nor retype one.
              if (
                !table.fields.every((old) => fields.some((f) => f.name === old.name && f.type === old.type))
              ) {
                throw apiError(400, "invalid", `Provided Schema does not match Table ${key}.`);
              }
              table.fields = fields;
            },
            createWriteStream(metadata) {
              const session = startLoad(tables.get(key), {
                tableId: key,
                partition,
                writeDisposition: metadata.writeDisposition,
                schemaFields: (metadata.schema?.fields ?? []) as StandInField[],
                schemaUpdateOptions: metadata.schemaUpdateOptions ?? [],
              });
              const upload: Writable = new Writable({
                write(chunk: Buffer, _encoding, done) {
                  session.push(chunk);
                  done();
                },
                final(done) {
                  done();
                  const outcome = session.finish();
                  const job: BigQueryLoadJob = {
                    id: `load_${key}_${partition}`,
                    metadata: {
                      statistics: {
                        load: { outputRows: String("outputRows" in outcome ? outcome.outputRows : 0) },
                      },
                    },
                  };
                  // The job finishes after the upload: a failure then is the job's.
                  setImmediate(() =>
                    "errors" in outcome
                      ? upload.emit("error", jobError(outcome.errors))
                      : upload.emit("complete", job),
                  );
                },
              });
              return upload;
            },
          };
        },
      };
    },
  };
  return { client, tables, datasets };
}
