import type { TableField } from "@google-cloud/bigquery";
import { apiError, bigQueryDouble } from "./client-double";
import { answerQuery } from "./stand-in-queries";
import {
  type JobError,
  type StandInField,
  type StandInTable,
  type StoredRow,
  startLoad,
} from "./stand-in-tables";

/** A finished job's errors as the client library raises them (an ApiError built from the job's status). */
function jobError(errors: readonly JobError[]): Error {
  return Object.assign(new Error(errors.map((e) => e.message).join("; ")), { errors });
}

/**
 * The client double with rows, for the shared warehouse contract suite: load
 * jobs are applied as BigQuery applies them (see startLoad: value checks,
 * schema additions, WRITE_TRUNCATE of one partition, all or nothing), and the
 * adapter's own queries are answered over the loaded rows (see answerQuery,
 * which knows only those). It is not BigQuery: what BigQuery stores and
 * prints only the live suite shows.
 */
export function memoryBigQuery() {
  /** Loaded rows by table (`project.dataset.table`), then partition (`20240131`). */
  const partitions = new Map<string, Map<string, StoredRow[]>>();

  function tableOf(path: string): StandInTable | undefined {
    const metadata = double.tables.get(path);
    if (!metadata) return undefined;
    if (!partitions.has(path)) partitions.set(path, new Map());
    return {
      id: path,
      fields: (metadata.schema?.fields ?? []) as StandInField[],
      ...(metadata.timePartitioning
        ? { timePartitioning: metadata.timePartitioning as { type: string } }
        : {}),
      partitions: partitions.get(path) as Map<string, StoredRow[]>,
    };
  }

  const double = bigQueryDouble({
    query({ query, params }) {
      // DATETIME parameters come wrapped (BigQuery.datetime), the others as they are.
      const text = Object.fromEntries(
        Object.entries(params).map(([name, v]) => [name, String((v as { value?: unknown })?.value ?? v)]),
      );
      const answer = answerQuery(query, text, double.tables.keys(), tableOf);
      if ("notFound" in answer) throw apiError(404, "notFound", `Not found: Table ${answer.notFound}`);
      if ("invalid" in answer) throw apiError(400, "invalidQuery", answer.invalid);
      return answer.rows.map((row) => Object.fromEntries(answer.columns.map((c, i) => [c, row[i]])));
    },
    load({ target, metadata, text }) {
      const [path = "", partition] = target.split("$");
      const table = tableOf(path);
      const session = startLoad(table, {
        tableId: path,
        partition,
        writeDisposition: metadata.writeDisposition,
        schemaFields: (metadata.schema?.fields ?? []) as StandInField[],
        schemaUpdateOptions: metadata.schemaUpdateOptions ?? [],
      });
      session.push(Buffer.from(text));
      const outcome = session.finish();
      if ("errors" in outcome) throw jobError(outcome.errors);
      const stored = double.tables.get(path);
      if (table && stored) stored.schema = { fields: table.fields as TableField[] };
      return {
        id: `load_${target}`,
        metadata: { statistics: { load: { outputRows: String(outcome.outputRows) } } },
      };
    },
  });
  return { client: double.client, partitions };
}
